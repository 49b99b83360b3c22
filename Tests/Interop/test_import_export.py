"""`hearth database:import` and `database:export` against a running server: an export-shaped
file goes in as one write and comes back out the same, with priorities; a bad file changes
nothing."""

import json
import subprocess
import uuid

import requests

from conftest import HEARTH_BIN, OWNER


def run_hearth(server, *arguments):
    return subprocess.run(
        [HEARTH_BIN, *arguments, "--url", server.url], capture_output=True, text=True, timeout=300)


def test_an_export_imports_and_exports_back_unchanged(hearth, tmp_path):
    namespace = f"import-{uuid.uuid4().hex[:8]}"
    users = {f"-Nk{index:012d}": {"name": f"user {index}", "score": index % 97} for index in range(50_000)}
    users["-Nk000000000007"][".priority"] = 3
    export = {"users": users, "flags": {"open": True}}
    source = tmp_path / "export.json"
    source.write_text(json.dumps(export))

    imported = run_hearth(hearth, "database:import", str(source), "--ns", namespace, "--path", "/backup")
    assert imported.returncode == 0, imported.stderr
    assert "100%" in imported.stderr
    response = requests.get(f"{hearth.url}/backup/users/-Nk000000049999.json", params={"ns": namespace}, timeout=10)
    assert response.json() == {"name": "user 49999", "score": 49999 % 97}

    target = tmp_path / "back.json"
    exported = run_hearth(hearth, "database:export", "--ns", namespace, "--path", "backup", "--output", str(target))
    assert exported.returncode == 0, exported.stderr
    assert json.loads(target.read_text()) == export


def test_an_invalid_file_is_refused_and_changes_nothing(hearth, tmp_path):
    namespace = f"import-{uuid.uuid4().hex[:8]}"
    requests.put(f"{hearth.url}/kept.json", params={"ns": namespace}, json="before", headers=OWNER, timeout=10)
    source = tmp_path / "bad.json"
    source.write_text('{"fine": 1, "not.valid": 2}')
    refused = run_hearth(hearth, "database:import", str(source), "--ns", namespace, "--path", "kept")
    assert refused.returncode != 0
    assert "Invalid data; couldn't parse key" in refused.stderr
    assert requests.get(f"{hearth.url}/kept.json", params={"ns": namespace}, timeout=10).json() == "before"
