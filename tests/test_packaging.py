"""What a self-hosting admin installs: declared, locked and built the same way everywhere."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import bot.__main__ as bot_main
from bot import ai_worker

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "renderer", "bot")


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    assert isinstance(project, dict)
    return project


def _dependencies() -> list[Requirement]:
    declared = _project()["dependencies"]
    assert isinstance(declared, list)
    return [Requirement(text) for text in declared]


def _locked() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        found = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if found:
            pins[canonicalize_name(found[1])] = found[2]
    return pins


def _third_party_imports() -> set[str]:
    names: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names and name not in PACKAGES}


def test_every_imported_package_is_declared() -> None:
    """Each third-party module the bot imports comes from a distribution pyproject declares."""
    declared = {canonicalize_name(requirement.name) for requirement in _dependencies()}
    providers = metadata.packages_distributions()
    for module in sorted(_third_party_imports()):
        distributions = {canonicalize_name(name) for name in providers.get(module, [])}
        assert distributions & declared, f"{module} is imported but its package is not declared"


def test_the_lock_pins_every_dependency_inside_its_range() -> None:
    """requirements.lock pins each declared dependency at a version pyproject allows."""
    pins = _locked()
    for requirement in _dependencies():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is declared but not in requirements.lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {requirement.name}=={pins[name]}, outside {requirement}"
        )


def _pip_installs(text: str) -> list[str]:
    return [" ".join(found.split()) for found in re.findall(r"pip install [^\n&\\]+", text)]


def _readme_section(title: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(f"\n## {title}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end != -1 else None]


def test_the_dockerfile_installs_as_the_readme_says() -> None:
    """The image runs the README's self-hosting install commands, in the same order."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    installs = _pip_installs(_readme_section("Self-hosting"))
    assert installs == ["pip install -r requirements.lock", "pip install --no-deps ."]
    assert _pip_installs(dockerfile) == installs


def test_the_image_keeps_its_database_on_the_volume_and_runs_unprivileged() -> None:
    """The Dockerfile puts BRANDUBH_DB on /data, declares it a volume and drops root."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    assert "ENV BRANDUBH_DB=/data/" in dockerfile
    assert 'VOLUME ["/data"]' in dockerfile
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.MULTILINE)
    assert dockerfile.rstrip().endswith('CMD ["python", "-m", "bot"]')
    assert ":/data" in compose


def _unit(name: str) -> dict[str, list[str]]:
    """A systemd unit of deploy/: each setting's values, in order (sections and comments off)."""
    settings: dict[str, list[str]] = {}
    for line in (ROOT / "deploy" / name).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


SHARDS_BY_NAME = "/usr/bin/env DISCORD_SHARD_IDS=%i "
"""How the shard template's command begins: its instance name is the shards it runs."""

UNITS = {
    "brandubh-bot.service": ("bot", {bot_main.EXIT_CONFIG, bot_main.EXIT_IN_USE}),
    "brandubh-ai-worker.service": ("bot.ai_worker", {ai_worker.EXIT_REFUSED}),
    "brandubh-bot-shard@.service": ("bot", {bot_main.EXIT_CONFIG}),
}
"""Each unit of deploy/: the module it runs, and the exit codes after which it must not restart
(those that need a person: the others are a clean stop or worth trying again)."""


def test_the_systemd_units_run_the_modules_and_know_their_exit_codes() -> None:
    """Each unit runs a module of this tree from the plain install, stops it with SIGTERM,
    restarts it after a failure except after the exit codes the module keeps for a person, and
    is shown in the README."""
    assert sorted(path.name for path in (ROOT / "deploy").glob("*.service")) == sorted(UNITS)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ai_worker.EXIT_UNREACHABLE not in UNITS["brandubh-ai-worker.service"][1]
    for name, (module, needs_a_person) in UNITS.items():
        unit = _unit(name)
        (command,) = unit["ExecStart"]
        assert command.removeprefix(SHARDS_BY_NAME) == f"/opt/brandubh/.venv/bin/python -m {module}"
        spec = importlib.util.find_spec(module)
        assert spec is not None, module
        if spec.submodule_search_locations is not None:  # a package: run by its __main__
            assert importlib.util.find_spec(f"{module}.__main__") is not None, module
        assert unit["EnvironmentFile"] == ["/opt/brandubh/.env"], name
        assert unit["KillSignal"] == ["SIGTERM"], name
        assert unit["Restart"] == ["on-failure"], name
        prevented = {int(code) for code in unit["RestartPreventExitStatus"][0].split()}
        assert prevented == needs_a_person, name
        assert f"sudo cp deploy/{name} /etc/systemd/system/" in readme, name
        if module == "bot":
            # The bot writes beside its database (the command sync state; on SQLite the
            # database, its lock and backups): under ProtectSystem=strict only a state
            # directory is writable.
            assert unit["ProtectSystem"] == ["strict"], name
            (state,) = unit["StateDirectory"]
            assert unit["WorkingDirectory"] == [f"/var/lib/{state}"], name
    # The template's instance name is the shards its process runs (brandubh-bot-shard@0-3),
    # set on the command line: systemd lets an EnvironmentFile's value win over Environment=.
    assert _unit("brandubh-bot-shard@.service")["ExecStart"][0].startswith(SHARDS_BY_NAME)


def _compose_services() -> dict[str, str]:
    """compose.yaml's services, each with the text of its block."""
    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    body = compose[compose.index("\nservices:\n") : compose.index("\nvolumes:\n")]
    services: dict[str, str] = {}
    name = ""
    for line in body.splitlines()[2:]:
        found = re.match(r"^  ([a-z0-9-]+):", line)
        if found:
            name = found[1]
            services[name] = ""
        elif name and not line.lstrip().startswith("#"):
            services[name] += line + "\n"
    return services


def test_compose_runs_the_sqlite_bot_by_default_and_the_scale_example_when_named() -> None:
    """`docker compose up -d` starts only the SQLite bot; PostgreSQL, the two shards and the
    worker are a profile's, and the worker runs `python -m bot.ai_worker` on the shards'
    database."""
    services = _compose_services()
    assert sorted(services) == ["ai-worker", "bot", "postgres", "shard-0", "shard-1"]
    assert "profiles" not in services["bot"]
    for name in ("ai-worker", "postgres", "shard-0", "shard-1"):
        assert "profiles: [scale]" in services[name], name
    assert 'command: ["python", "-m", "bot.ai_worker"]' in services["ai-worker"]
    url = "BRANDUBH_DB: postgresql://brandubh:${POSTGRES_PASSWORD:-}@postgres/brandubh"
    assert url in services["ai-worker"]
    assert url in services["shard-0"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docker compose --profile scale up -d postgres shard-0 shard-1 ai-worker" in readme


def test_the_ci_installs_with_the_readme_test_command() -> None:
    """.ci/run installs exactly as the README's test command does."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "pip install -r requirements.lock -e '.[test,dev]'"
    assert command in readme
    assert command in ci
