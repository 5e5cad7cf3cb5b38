"""Start-up settings: what an operator sees when the environment is right or wrong."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bot.config import DEFAULT_API_BASE, DEFAULT_GATEWAY_URL, ConfigError, load_settings

ROOT = Path(__file__).resolve().parent.parent


def test_defaults_need_only_a_token() -> None:
    """With only DISCORD_TOKEN set, the bot talks to Discord itself and uses brandubh.sqlite3."""
    settings = load_settings({"DISCORD_TOKEN": "abc"})
    assert settings.api_base == DEFAULT_API_BASE
    assert settings.gateway_url == DEFAULT_GATEWAY_URL
    assert settings.db_path == Path("brandubh.sqlite3")
    assert settings.guild_ids == ()


def test_missing_token_is_a_config_error() -> None:
    """No DISCORD_TOKEN is refused with a sentence naming the variable."""
    with pytest.raises(ConfigError, match="DISCORD_TOKEN"):
        load_settings({"DISCORD_TOKEN": "  "})


def test_development_guilds_are_read_from_a_list() -> None:
    """DISCORD_GUILD_IDS accepts ids separated by commas or spaces."""
    settings = load_settings({"DISCORD_TOKEN": "t", "DISCORD_GUILD_IDS": "12, 34 56"})
    assert settings.guild_ids == (12, 34, 56)


def test_a_bad_guild_id_names_the_variable() -> None:
    """A guild id that is not a number is refused with the variable's name."""
    with pytest.raises(ConfigError, match="DISCORD_GUILD_IDS"):
        load_settings({"DISCORD_TOKEN": "t", "DISCORD_GUILD_IDS": "my-server"})


def test_ai_time_is_read_in_seconds() -> None:
    """BRANDUBH_AI_SECONDS sets the computer's time per move."""
    settings = load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_AI_SECONDS": "0.25"})
    assert settings.ai_time == timedelta(seconds=0.25)


def test_ai_nodes_are_read_and_checked() -> None:
    """BRANDUBH_AI_NODES bounds the computer's search by positions; empty thinks by time, and a
    value that is not a positive whole number is refused with the variable's name."""
    assert load_settings({"DISCORD_TOKEN": "t"}).ai_nodes is None
    assert load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_AI_NODES": "800"}).ai_nodes == 800
    for wrong in ("0", "many", "-5"):
        with pytest.raises(ConfigError, match="BRANDUBH_AI_NODES"):
            load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_AI_NODES": wrong})


def test_token_is_not_in_the_settings_repr() -> None:
    """Logging the settings never shows the token."""
    settings = load_settings({"DISCORD_TOKEN": "very-secret-token"})
    assert "very-secret-token" not in repr(settings)


def test_log_level_is_read_in_any_case() -> None:
    """BRANDUBH_LOG_LEVEL=debug turns on debug logging."""
    settings = load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_LOG_LEVEL": "debug"})
    assert settings.log_level == "DEBUG"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BRANDUBH_LOG_LEVEL", "loud"),
        ("BRANDUBH_AI_WORKERS", "many"),
        # Digits Python's isdigit() takes but int() does not (superscripts):
        ("BRANDUBH_AI_WORKERS", "\u00b2"),
        ("BRANDUBH_AI_NODES", "\u00b2"),
        ("BRANDUBH_ANALYSIS_NODES", "\u00b2" * 5),
        ("DISCORD_GUILD_IDS", "\u00b9\u00b2"),
        ("DISCORD_SHARD_COUNT", "\u00b2"),
        ("BRANDUBH_AI_SECONDS", "-1"),
        ("BRANDUBH_TIMER_SECONDS", "soon"),
        ("BRANDUBH_BACKUP_HOURS", "-2"),
        ("DISCORD_API_BASE", "discord.com/api"),
        ("DISCORD_GATEWAY_URL", "https://gateway.discord.gg"),
    ],
)
def test_a_bad_setting_is_one_sentence_naming_it(name: str, value: str) -> None:
    """Each unreadable setting is refused with a sentence that names the variable."""
    with pytest.raises(ConfigError, match=name):
        load_settings({"DISCORD_TOKEN": "t", name: value})


@pytest.mark.parametrize(
    "name",
    ["BRANDUBH_AI_SECONDS", "BRANDUBH_TIMER_SECONDS", "BRANDUBH_GUILD_READY_TIMEOUT"],
)
@pytest.mark.parametrize("value", ["nan", "inf", "1e300"])
def test_seconds_that_are_no_duration_are_one_sentence(name: str, value: str) -> None:
    """nan, inf or 1e300 seconds read as floats but are no duration: refused naming the
    setting (before, a traceback and exit code 1)."""
    with pytest.raises(ConfigError, match=f"{name} must be a number of seconds"):
        load_settings({"DISCORD_TOKEN": "t", name: value})


@pytest.mark.parametrize("value", ["nan", "inf", "1e12", "8761"])
def test_backup_hours_past_a_year_are_one_sentence(value: str) -> None:
    """BRANDUBH_BACKUP_HOURS must be a number of hours up to a year: the next backup's date is
    the last one's plus it (before, nan or inf was a traceback, 1e8 a backup task that died)."""
    with pytest.raises(ConfigError, match="BRANDUBH_BACKUP_HOURS"):
        load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_BACKUP_HOURS": value})
    settings = load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_BACKUP_HOURS": "8760"})
    assert settings.backup_interval == timedelta(days=365)


def _run_bot(tmp_path: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "BRANDUBH_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(settings)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_python_m_bot_with_a_bad_log_level_exits_2_with_one_line(tmp_path: Path) -> None:
    """`BRANDUBH_LOG_LEVEL=loud python -m bot` prints one line naming the setting, exit code 2."""
    done = _run_bot(tmp_path, DISCORD_TOKEN="t", BRANDUBH_LOG_LEVEL="loud")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "BRANDUBH_LOG_LEVEL" in lines[0]
    assert not (tmp_path / "brandubh.sqlite3").exists()


def test_python_m_bot_without_token_exits_2_with_one_line(tmp_path: Path) -> None:
    """`python -m bot` with no token prints one line on stderr and exits with code 2."""
    done = _run_bot(tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "DISCORD_TOKEN" in lines[0]
    assert "Traceback" not in done.stderr


def test_postgresql_url_is_the_shared_database() -> None:
    """BRANDUBH_DB=postgresql://… selects PostgreSQL; its password never shows in the repr."""
    url = "postgresql://bot:hunter2@db.internal:5432/brandubh"
    settings = load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_DB": url})
    assert settings.database == url
    assert settings.database_url == url
    assert "hunter2" not in repr(settings)


def test_shard_ids_are_read_as_ranges() -> None:
    """DISCORD_SHARD_IDS=0-1 of DISCORD_SHARD_COUNT=4 runs shards 0 and 1 (PostgreSQL)."""
    settings = load_settings(
        {
            "DISCORD_TOKEN": "t",
            "BRANDUBH_DB": "postgresql:///brandubh",
            "DISCORD_SHARD_COUNT": "4",
            "DISCORD_SHARD_IDS": "0-1",
        }
    )
    assert (settings.shard_count, settings.shard_ids) == (4, (0, 1))
    assert not settings.shards.owns(3 << 22)  # shard 3
    assert settings.shards.owns(4 << 22)  # shard 0
    assert not settings.shards.owns(6 << 22)  # shard 2
    assert settings.shards.owns(5 << 22)  # shard 1


@pytest.mark.parametrize(
    ("environment", "words"),
    [
        ({"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "2"}, "names shard 2"),
        ({"DISCORD_SHARD_COUNT": "two"}, "DISCORD_SHARD_COUNT"),
        ({"DISCORD_SHARD_IDS": "0"}, "needs DISCORD_SHARD_COUNT"),
        ({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "0-x"}, "DISCORD_SHARD_IDS"),
        ({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "0-1"}, "SQLite cannot be shared"),
    ],
)
def test_bad_shard_settings_are_one_sentence(environment: dict[str, str], words: str) -> None:
    """Shard settings that cannot work are refused with a sentence naming the setting."""
    with pytest.raises(ConfigError, match=words):
        load_settings({"DISCORD_TOKEN": "t", **environment})


def test_sqlite_with_every_shard_is_allowed() -> None:
    """One process running every shard may keep SQLite."""
    settings = load_settings(
        {"DISCORD_TOKEN": "t", "DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "0,1"}
    )
    assert settings.shards.every


@pytest.mark.parametrize(
    ("environment", "words"),
    [
        ({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "4"}, "names shard 4"),
        ({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "0-1"}, "postgresql://"),
    ],
)
def test_python_m_bot_with_bad_shards_exits_2_with_one_line(
    tmp_path: Path, environment: dict[str, str], words: str
) -> None:
    """A shard outside the count, or SQLite left to several processes: one line, exit code 2."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "BRANDUBH_"))}
    env.update(environment, PYTHONPATH=str(ROOT), DISCORD_TOKEN="t")
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert words in lines[0]
