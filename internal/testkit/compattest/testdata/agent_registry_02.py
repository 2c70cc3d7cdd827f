#!/usr/bin/env python3
"""agent-registry 0.2, re-implemented as a test fixture for agentlock.

This file behaves like agent-registry 0.2.1's two scripts,
scripts/registry_manager.py and scripts/lock_manager.py, in everything that
another implementation sharing their files can observe:

Registry (registry.md)
  - Location: $AGENT_REGISTRY_PATH, else ~/Desktop/agent-registry/registry.md.
  - Every write runs under flock(LOCK_EX) on registry.md.lock beside it (a
    file never renamed or deleted), reads registry.md inside that section,
    and replaces it through a temporary file in the same folder (fsync,
    os.replace).
  - The file is "---\\n" + yaml.safe_dump(frontmatter, sort_keys=False,
    allow_unicode=True, default_flow_style=False) + "---\\n\\n" + protocol
    block + "\\n\\n" + a 13-column table + "\\n".
  - The frontmatter is rebuilt on every write as {version: "1.0",
    last_updated: <Rome time, isoformat with microseconds>, agents: [...]}:
    0.2 keeps no other top-level key and resets version. Session mappings
    are written back as loaded, so keys it does not know survive, in their
    order.
  - register builds a new session in 0.2's key order, types and defaults
    (started_at "YYYY-MM-DD HH:MM" Rome time, todo {past, present, future},
    space, do_not_touch [], status OnWorking, issues "", handoff ""),
    removes any entry with the same id and appends it.
  - update_session sets the given keys (a todo mapping is merged into the
    session's todo); handoff replaces; finish sets Finished, empties
    do_not_touch and releases the locks it listed.
  - Reading: the frontmatter is what the regular expression
    ^---\\s*\\n(.*?)\\n---\\s*\\n(.*)$ finds, parsed with yaml.safe_load.

Locks (locks/)
  - Location: $AGENT_REGISTRY_LOCK_DIR, else ~/Desktop/agent-registry/locks.
  - One file per path: sha256(os.path.realpath(path))[:16] + ".lock",
    holding "<session>|<time.time()>|<real path>"; flock only around each
    read-modify-write (shared for readers); contents stripped when read;
    release empties the file in place; an unparsable record counts as
    free; the timeout is 120 s.

What differs, for the tests only: results are printed as JSON where 0.2
prints a dict's repr (check adds is_locked's fields to check_and_warn's),
and three commands exist that 0.2 does not have:
  dump                 print the frontmatter as JSON, with its key orders
  set <sid> <json>     update_session(sid, **json) (0.2's Python API)
  batch <json>         run a list of command lines in this one process
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from contextlib import contextmanager
from datetime import datetime

# Modules are imported where they are needed, and os.path stands for 0.2's
# pathlib: the tests race hundreds of these processes, and start-up time is
# most of what each one costs (0.2's lock commands, in lock_manager.py, do
# not load the registry's modules either).

TIMEOUT = 120.0

PROTOCOL_BLOCK = """<!-- PROTOCOL:START — rigenerato a ogni scrittura, non modificare a mano -->
# AGENT REGISTRY — PROTOCOLLO OBBLIGATORIO

> 1. Leggi prima di toccare. 2. Registrati. 3. Acquisisci il lock prima di ogni modifica.
> 4. heartbeat-loop oltre i 120s. 5. finish a fine sessione.
>
> **I lock sono advisory.**
<!-- PROTOCOL:END -->"""

TABLE_HEADER = (
    "| Session ID | Provider | AI Version | Started At (Rome) | "
    "Working On | To Do Past | To Do Present | To Do Future | "
    "Space | Do Not Touch | Status | Issues | Handoff |"
)
TABLE_SEP = "|---|---|---|---|---|---|---|---|---|---|---|---|---|"


# ---- locations -------------------------------------------------------------

def default_home() -> str:
    return os.path.join(os.path.expanduser("~"), "Desktop", "agent-registry")


def registry_path() -> str:
    return os.environ.get("AGENT_REGISTRY_PATH") or os.path.join(default_home(), "registry.md")


def lock_dir() -> str:
    return os.environ.get("AGENT_REGISTRY_LOCK_DIR") or os.path.join(default_home(), "locks")


# ---- registry --------------------------------------------------------------

@contextmanager
def registry_section(path: str):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def rome_now() -> datetime:
    try:
        from zoneinfo import ZoneInfo

        return datetime.now(ZoneInfo("Europe/Rome"))
    except Exception:
        return datetime.now().astimezone()


def cell(value) -> str:
    if value is None:
        return ""
    return str(value).replace("|", "\\|").replace("\n", " ")


def cells(items) -> str:
    if not items:
        return ""
    return ", ".join(cell(x) for x in items)


def table(agents) -> str:
    lines = [TABLE_HEADER, TABLE_SEP]
    for a in agents:
        todo = a.get("todo") or {}
        lines.append(
            f"| {cell(a.get('session_id'))} | {cell(a.get('provider'))} | "
            f"{cell(a.get('ai_version'))} | {cell(a.get('started_at'))} | "
            f"{cell(a.get('working_on'))} | {cells(todo.get('past', []))} | "
            f"{cells(todo.get('present', []))} | {cells(todo.get('future', []))} | "
            f"{cells(a.get('space', []))} | {cells(a.get('do_not_touch', []))} | "
            f"{cell(a.get('status'))} | {cell(a.get('issues'))} | {cell(a.get('handoff'))} |"
        )
    return "\n".join(lines)


def render(agents) -> str:
    import yaml

    front = {"version": "1.0", "last_updated": rome_now().isoformat(), "agents": agents}
    body = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"---\n{body}---\n\n{PROTOCOL_BLOCK}\n\n{table(agents)}\n"


def mkstemp(folder: str):
    """tempfile.mkstemp(dir=folder, prefix=".registry_", suffix=".tmp")."""
    while True:
        name = os.path.join(folder, ".registry_" + os.urandom(6).hex() + ".tmp")
        try:
            return os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600), name
        except FileExistsError:
            continue


def write_atomic(path: str, content: str) -> None:
    fd, tmp = mkstemp(os.path.dirname(path))
    try:
        os.write(fd, content.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def parse(text: str, source: str):
    import re

    import yaml

    match = re.match(r"^---\s*\n(.*?)\n---\s*\n(.*)$", text, re.DOTALL)
    if not match:
        raise ValueError(f"Formato registry non valido: {source}")
    return yaml.safe_load(match.group(1)) or {}


def load_front(path: str):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


def load_agents(path: str):
    return load_front(path).get("agents", []) or []


def register_session(sid, provider, ai_version, working_on, space=None, todo_present=None):
    path = registry_path()
    agent = {
        "session_id": sid,
        "provider": provider,
        "ai_version": ai_version,
        "started_at": rome_now().strftime("%Y-%m-%d %H:%M"),
        "working_on": working_on,
        "todo": {"past": [], "present": todo_present or [], "future": []},
        "space": space or [],
        "do_not_touch": [],
        "status": "OnWorking",
        "issues": "",
        "handoff": "",
    }
    with registry_section(path):
        agents = [a for a in load_agents(path) if a.get("session_id") != sid]
        agents.append(agent)
        write_atomic(path, render(agents))
    return agent


def update_session(sid, **changes):
    path = registry_path()
    with registry_section(path):
        agents = load_agents(path)
        for agent in agents:
            if agent.get("session_id") == sid:
                for key, value in changes.items():
                    if key == "todo" and isinstance(value, dict):
                        agent.setdefault("todo", {}).update(value)
                    else:
                        agent[key] = value
                write_atomic(path, render(agents))
                return agent
    return None


def unregister_session(sid):
    path = registry_path()
    with registry_section(path):
        agents = load_agents(path)
        target = next((a for a in agents if a.get("session_id") == sid), None)
        if target is None:
            return None
        held = list(target.get("do_not_touch") or [])
        target["status"] = "Finished"
        target["do_not_touch"] = []
        write_atomic(path, render(agents))
    for p in held:
        try:
            release_lock(p, sid)
        except Exception as e:
            print(f"Attenzione: rilascio di '{p}' fallito: {e}", file=sys.stderr)
    return target


# ---- locks -----------------------------------------------------------------

def lock_file(path: str) -> str:
    import hashlib

    real = os.path.realpath(path)
    return os.path.join(lock_dir(), hashlib.sha256(real.encode("utf-8")).hexdigest()[:16] + ".lock")


@contextmanager
def lock_section(path: str, shared: bool = False):
    os.makedirs(lock_dir(), exist_ok=True)
    fd = os.open(lock_file(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield fd
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_record(fd) -> dict:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        chunks.append(chunk)
    content = b"".join(chunks).decode("utf-8", errors="replace").strip()
    if not content:
        return {}
    parts = content.split("|", 2)
    if len(parts) < 2:
        return {}
    try:
        stamp = float(parts[1])
    except ValueError:
        return {}
    info = {"session_id": parts[0], "timestamp": stamp}
    if len(parts) > 2:
        info["path"] = parts[2]
    return info


def write_record(fd, sid: str, real: str) -> None:
    data = f"{sid}|{time.time()}|{real}".encode("utf-8")
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)
    os.fsync(fd)


def stale(info) -> bool:
    return bool(info) and time.time() - info.get("timestamp", 0) > TIMEOUT


def is_locked(path: str) -> dict:
    if not os.path.exists(lock_file(path)):
        return {"locked": False}
    with lock_section(path, shared=True) as fd:
        info = read_record(fd)
    if not info:
        return {"locked": False}
    if stale(info):
        return {"locked": False, "stale_owner": info.get("session_id")}
    return {"locked": True, "session_id": info.get("session_id"), "path": info.get("path"),
            "age": time.time() - info.get("timestamp", 0)}


def acquire_lock(path: str, sid: str) -> dict:
    real = os.path.realpath(path)
    with lock_section(path) as fd:
        info = read_record(fd)
        if not info:
            write_record(fd, sid, real)
            return {"locked": True, "owner": sid}
        if info.get("session_id") == sid:
            write_record(fd, sid, real)
            return {"locked": True, "owner": sid, "note": "already locked by you"}
        if stale(info):
            write_record(fd, sid, real)
            return {"locked": True, "owner": sid, "stale_owner": info.get("session_id")}
        return {"locked": False, "session_id": info.get("session_id"),
                "age": time.time() - info.get("timestamp", 0)}


def release_lock(path: str, sid: str) -> dict:
    if not os.path.exists(lock_file(path)):
        return {"released": True, "note": "lock file not found"}
    with lock_section(path) as fd:
        info = read_record(fd)
        if not info:
            return {"released": True, "note": "already released"}
        if info.get("session_id") != sid:
            return {"released": False, "error": "not owner", "current_owner": info.get("session_id")}
        os.ftruncate(fd, 0)
        os.fsync(fd)
        return {"released": True}


def heartbeat(path: str, sid: str) -> dict:
    if not os.path.exists(lock_file(path)):
        return {"ok": False, "error": "lock not found"}
    real = os.path.realpath(path)
    with lock_section(path) as fd:
        info = read_record(fd)
        if not info:
            return {"ok": False, "error": "lock not found"}
        if info.get("session_id") != sid:
            return {"ok": False, "error": "not owner", "current_owner": info.get("session_id")}
        write_record(fd, sid, real)
        return {"ok": True}


def check_and_warn(path: str, sid: str) -> dict:
    status = is_locked(path)
    if status.get("locked"):
        owner = status.get("session_id")
        if owner == sid:
            return {"ok": True, "note": "already locked by you", **status}
        return {"ok": False, "owner": owner, **status}
    return {"ok": True, "note": "not locked", **status}


# ---- command line ----------------------------------------------------------

def to_json(value) -> str:
    """json.dumps for the flat results of the lock commands, without the
    json module: importing it (and re) would double a lock command's
    start-up, and the tests start hundreds of them."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(to_json(str(k)) + ": " + to_json(v) for k, v in value.items()) + "}"
    out = ['"']
    for ch in str(value):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def emit(result: dict, ok: bool) -> int:
    print(to_json(result))
    return 0 if ok else 1


def dump() -> int:
    import json

    front = load_front(registry_path())
    agents = front.get("agents") or []
    order = {
        "top": list(front),
        "agents": [list(a) if isinstance(a, dict) else None for a in agents],
        "todo": [list(a.get("todo") or {}) if isinstance(a, dict) and isinstance(a.get("todo"), dict) else None
                 for a in agents],
    }
    print(json.dumps({"frontmatter": front, "order": order}, default=str, ensure_ascii=False))
    return 0


def run(argv) -> int:
    cmd = argv[0] if argv else "help"
    if cmd == "register":
        agent = register_session(argv[1], argv[2], argv[3], argv[4],
                                 space=argv[5].split(",") if len(argv) > 5 else [],
                                 todo_present=argv[6].split(",") if len(argv) > 6 else [])
        print(f"Registrato: {agent['session_id']}")
        return 0
    if cmd in ("update", "set", "handoff", "finish"):
        sid = argv[1]
        if cmd == "update":
            done = update_session(sid, working_on=argv[2] if len(argv) > 2 else "")
        elif cmd == "set":
            import json

            done = update_session(sid, **json.loads(argv[2]))
        elif cmd == "handoff":
            done = update_session(sid, handoff=argv[2])
        else:
            done = unregister_session(sid)
        if done is None:
            print(f"Errore: sessione '{sid}' non trovata.", file=sys.stderr)
            return 1
        return 0
    if cmd == "show":
        for a in load_agents(registry_path()):
            print(a)
        return 0
    if cmd == "dump":
        return dump()
    if cmd == "batch":
        import json

        for line in json.loads(argv[1]):
            code = run(line)
            if code != 0:
                return code
        return 0
    if cmd == "acquire":
        r = acquire_lock(argv[1], argv[2])
        return emit(r, r["locked"])
    if cmd == "release":
        r = release_lock(argv[1], argv[2])
        return emit(r, r["released"])
    if cmd == "heartbeat":
        r = heartbeat(argv[1], argv[2])
        return emit(r, r["ok"])
    if cmd == "check":
        r = check_and_warn(argv[1], argv[2] if len(argv) > 2 else "")
        return emit(r, r["ok"])
    print(f"unknown command {cmd!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(run(sys.argv[1:]))
    except IndexError:
        print("Errore: argomenti mancanti.", file=sys.stderr)
        sys.exit(1)
