"""Upload to findings in the console: how long after a capture's upload completes its findings and connection
table can be seen, against a running console (`make dev`), as its demo owner.

    .venv/bin/python bench/console_capture.py CAPTURE [--rounds 2]
    .venv/bin/python bench/console_capture.py CLIENT_SIDE --server-side SERVER_SIDE [--rounds 1]

Each round makes an incident, streams the file to ``…/evidence/upload/`` (the raw body, as ``curl -T`` does), then
asks for the evidence card every 100 ms until its analysis is done, then for the first page of the connection
table and the checklist (what the incident page shows first). Prints, in seconds after the upload's last byte was
answered: when the worker started, when the analysis was done (the run's own times, from the database), and when
the findings and the connection table's first page had been read by this client. Also the upload itself (MB/s).

With ``--server-side``, two captures of the same traffic: each round uploads CAPTURE (the client side's) and waits
for its analysis, then uploads the server side's and asks for the incident's findings every 200 ms until the
comparison of the two (``path.loss_between_captures`` or ``path.no_loss_between_captures``) is there; prints when the
second analysis was done and when the comparison was read, in seconds after the second upload's last byte.

A figure, not a pass or fail.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import Session, console_arguments, signed_in

#: The findings that compare two captures.
PAIR_KINDS = ("path.loss_between_captures", "path.no_loss_between_captures")


def new_incident(session: Session, team: int, title: str) -> str:
    """A new incident's API address."""
    incident = {"team": team, "title": f"bench {title}", "started_at": "2026-01-01T00:00:00Z"}
    status, body = session.request("POST", "/api/incidents/", incident)
    assert status == 201, body
    return f"/api/incidents/{json.loads(body)['id']}/"


def upload(session: Session, base: str, capture: Path) -> int:
    """Stream one capture to the incident (the raw body); its evidence id."""
    with capture.open("rb") as body:
        status, answer = session.request(
            "POST", base + f"evidence/upload/?filename={capture.name}", raw=body, timeout=3600
        )
    assert status == 201, answer
    evidence: int = json.loads(answer)["id"]
    return evidence


def analysed(session: Session, base: str, evidence: int) -> dict[str, Any]:
    """The evidence card, asked for every 100 ms until its analysis is done (or failed)."""
    while True:
        card: dict[str, Any] = json.loads(session.request("GET", base + f"evidence/{evidence}/")[1])
        if card["analysis"]["status"] in ("done", "failed"):
            return card
        time.sleep(0.1)


def one_round(session: Session, capture: Path, team: int) -> None:
    base = new_incident(session, team, capture.name)
    size = capture.stat().st_size
    began = time.monotonic()
    evidence = upload(session, base, capture)
    uploaded = time.monotonic()
    uploaded_at = time.time()
    card = analysed(session, base, evidence)
    run = card["analysis"]
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


def pair_round(session: Session, client_side: Path, server_side: Path, team: int) -> None:
    base = new_incident(session, team, f"{client_side.name} + {server_side.name}")
    analysed(session, base, upload(session, base, client_side))
    evidence = upload(session, base, server_side)
    uploaded = time.monotonic()
    assert analysed(session, base, evidence)["analysis"]["status"] == "done"
    done = time.monotonic()
    while not (found := [f for f in findings(session, base) if f["kind"] in PAIR_KINDS]):
        if time.monotonic() - uploaded > 1800:
            raise SystemExit("no comparison of the two captures after 30 minutes")
        time.sleep(0.2)
    print(
        f"{client_side.name} + {server_side.name}: the second analysis done {done - uploaded:.2f} s and the comparison "
        f"read {time.monotonic() - uploaded:.2f} s after its upload: {found[0]['title']}"
    )


def findings(session: Session, base: str) -> list[dict[str, Any]]:
    status, answer = session.request("GET", base + "findings/")
    assert status == 200, answer
    rows: list[dict[str, Any]] = json.loads(answer)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capture", type=Path)
    console_arguments(parser)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--server-side", type=Path, help="a second capture of the same traffic: time their comparison")
    args = parser.parse_args()
    session = signed_in(args)
    team = json.loads(session.request("GET", "/api/teams/")[1])[0]["id"]
    for _ in range(args.rounds):
        if args.server_side:
            pair_round(session, args.capture, args.server_side, team)
        else:
            one_round(session, args.capture, team)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
