# Brandubh for Discord: a small image that runs `python -m bot` as an unprivileged user, with the
# database (and its backups, lock and command hash) on the volume /data.
#
#   docker build -t brandubh-bot .
#   docker run -d --name brandubh --env-file .env -v brandubh-data:/data brandubh-bot
#
# The install steps are the README's "Self-hosting" install, word for word (tests/test_packaging.py
# holds them together): the locked versions first, then the bot itself without resolving again.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 --user-group brandubh \
    && mkdir /data && chown brandubh:brandubh /data

WORKDIR /opt/brandubh
COPY requirements.lock ./
RUN pip install -r requirements.lock
COPY pyproject.toml README.md LICENSE ./
COPY engine ./engine
COPY renderer ./renderer
COPY bot ./bot
# /rules attaches the rules pages: bot/rules_pages links to them, the build copies them in.
COPY docs/rules*.md ./docs/
RUN pip install --no-deps .

USER brandubh
WORKDIR /data
ENV BRANDUBH_DB=/data/brandubh.sqlite3
VOLUME ["/data"]
# SIGTERM stops the bot cleanly: games, challenges and timers resume at the next start.
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
