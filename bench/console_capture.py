"""Upload to findings in the console: how long after a capture's upload completes its findings and connection
table can be seen, against a running console (`make dev`), as its demo owner.

    .venv/bin/python bench/console_capture.py CAPTURE [--rounds 2]

Each round makes an incident, streams the file to ``…/evidence/upload/`` (the raw body, as ``curl -T`` does), then
asks for the evidence card every 100 ms until its analysis is done, then for the first page of the connection
table and the checklist (what the incident page shows first). Prints, in seconds after the upload's last byte was
answered: when the worker started, when the analysis was done (the run's own times, from the database), and when
the findings and the connection table's first page had been read by this client. Also the upload itself (MB/s).
A figure, not a pass or fail.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import Session  # noqa: E402


def one_round(session: Session, capture: Path, team: int) -> None:
    incident = {"team": team, "title": f"bench {capture.name}", "started_at": "2026-01-01T00:00:00Z"}
    status, body = session.request("POST", "/api/incidents/", incident)
    assert status == 201, body
    base = f"/api/incidents/{json.loads(body)['id']}/"
    size = capture.stat().st_size
    began = time.monotonic()
    with capture.open("rb") as body:
        status, answer = session.request(
            "POST", base + f"evidence/upload/?filename={capture.name}", raw=body, timeout=3600
        )
    assert status == 201, answer
    card = json.loads(answer)
    uploaded = time.monotonic()
    uploaded_at = time.time()
    evidence = card["id"]
    while True:
        card = json.loads(session.request("GET", base + f"evidence/{evidence}/")[1])
        run = card["analysis"]
        if run["status"] in ("done", "failed"):
            break
        time.sleep(0.1)
    done = time.monotonic()
    status, checklist = session.request("GET", base + "checklist/")
    assert status == 200, checklist
    status, rows = session.request("GET", base + f"evidence/{evidence}/connections/?limit=50")
    assert status == 200, rows
    shown = time.monotonic()

    def since(stamp: object) -> str:
        if not isinstance(stamp, str):
            return "-"
        return f"{dt.datetime.fromisoformat(stamp).timestamp() - uploaded_at:.2f}"

    summary = card.get("summary") or {}
    connections = json.loads(rows).get("count")
    print(
        f"{capture.name}: {size / 1e6:,.0f} MB uploaded in {uploaded - began:.1f} s "
        f"({size / 1e6 / (uploaded - began):,.0f} MB/s); {summary.get('packets', 0):,} packets, {connections:,} "
        f"connections; analysis {run['status']}: worker started {since(run['started_at'])} s and finished "
        f"{since(run['finished_at'])} s after the upload; card seen done {done - uploaded:.2f} s, findings and "
        f"first page of connections read {shown - uploaded:.2f} s after the upload"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capture", type=Path)
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('WHODUNNET_PORT', '8000')}")
    parser.add_argument("--username", default="demo")
    parser.add_argument("--password", help="default: .data/demo_password, written by make dev")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    password = args.password or (REPO / ".data" / "demo_password").read_text().strip()
    session = Session(args.url, args.username, password)
    team = json.loads(session.request("GET", "/api/teams/")[1])[0]["id"]
    for _ in range(args.rounds):
        one_round(session, args.capture, team)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
