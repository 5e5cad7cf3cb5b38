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


HUGE = str(10**30)


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("DISCORD_SHARD_COUNT", HUGE, "from 1 to 1000"),
        ("DISCORD_SHARD_COUNT", "1001", "from 1 to 1000"),
        ("DISCORD_SHARD_COUNT", "0", "from 1 to 1000"),
        ("BRANDUBH_AI_WORKERS", HUGE, "from 0 to 256"),
        ("BRANDUBH_AI_WORKERS", "257", "from 0 to 256"),
        ("BRANDUBH_AI_WORKERS", "9" * 5000, "from 0 to 256"),
        ("BRANDUBH_AI_NODES", HUGE, "from 1 to 10000000"),
        ("BRANDUBH_ANALYSIS_NODES", HUGE, "from 1000 to 1000000"),
        ("BRANDUBH_ANALYSIS_NODES", "999", "from 1000 to 1000000"),
        ("BRANDUBH_AI_SECONDS", "1e13", "from 0.01 to 60"),
        ("BRANDUBH_AI_SECONDS", "1e-300", "from 0.01 to 60"),
        ("BRANDUBH_TIMER_SECONDS", "1e13", "from 0.05 to 60"),
        ("BRANDUBH_TIMER_SECONDS", "1e-300", "from 0.05 to 60"),
        ("BRANDUBH_GUILD_READY_TIMEOUT", "1e13", "from 0.01 to 60"),
        ("BRANDUBH_BACKUP_HOURS", "1e-300", "from 0.1 to 8760"),
        ("DISCORD_GUILD_IDS", HUGE, "from 1 to 9223372036854775807"),
        ("DISCORD_GUILD_IDS", "0", "from 1 to 9223372036854775807"),
    ],
)
def test_a_setting_outside_its_range_is_one_sentence(name: str, value: str, words: str) -> None:
    """A number a setting reads but cannot mean (10**30 shards or processes, 1e13 seconds,
    1e-300 seconds: no pause at all) is refused naming the setting and its range (before,
    a traceback, a bot starting that many processes, or deadlines past datetime's end)."""
    with pytest.raises(ConfigError, match=f"^{name} must .*{words}") as refused:
        load_settings({"DISCORD_TOKEN": "t", name: value})
    assert "\n" not in str(refused.value)


def test_each_range_ends_are_accepted() -> None:
    """The ends of the documented ranges are settings like any other."""
    settings = load_settings(
        {
            "DISCORD_TOKEN": "t",
            "DISCORD_SHARD_COUNT": "1000",
            "DISCORD_GUILD_IDS": str(2**63 - 1),
            "BRANDUBH_AI_WORKERS": "256",
            "BRANDUBH_AI_NODES": "10000000",
            "BRANDUBH_ANALYSIS_NODES": "1000000",
            "BRANDUBH_AI_SECONDS": "60",
            "BRANDUBH_TIMER_SECONDS": "0.05",
            "BRANDUBH_GUILD_READY_TIMEOUT": "0.01",
            "BRANDUBH_BACKUP_HOURS": "0.1",
        }
    )
    assert settings.shards.count == 1000
    assert settings.guild_ids == (2**63 - 1,)
    assert (settings.ai_workers, settings.ai_nodes, settings.analysis_nodes) == (
        256,
        10_000_000,
        1_000_000,
    )
    assert settings.ai_time == timedelta(seconds=60)
    assert settings.timer_interval == timedelta(seconds=0.05)
    assert settings.backup_interval == timedelta(minutes=6)


def test_shard_ids_far_past_the_count_are_refused_at_once() -> None:
    """DISCORD_SHARD_IDS=0-99999999999 names the first shard past the count, without counting
    to the end of the range first (before, the bot filled its memory)."""
    with pytest.raises(ConfigError, match=r"names shard 4, but .* the shards are 0-3"):
        load_settings(
            {
                "DISCORD_TOKEN": "t",
                "BRANDUBH_DB": "postgresql:///brandubh",
                "DISCORD_SHARD_COUNT": "4",
                "DISCORD_SHARD_IDS": "1,2-99999999999",
            }
        )


def test_python_m_bot_with_a_huge_shard_count_exits_2_with_one_line(tmp_path: Path) -> None:
    """`DISCORD_SHARD_COUNT=10**30 python -m bot` is one line naming the setting and its range,
    exit code 2 (before, a traceback)."""
    done = _run_bot(tmp_path, DISCORD_TOKEN="t", DISCORD_SHARD_COUNT=HUGE)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "DISCORD_SHARD_COUNT must be a whole number from 1 to 1000" in lines[0]


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
