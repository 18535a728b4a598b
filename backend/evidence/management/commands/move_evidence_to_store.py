"""Move evidence from the local folder into the configured S3-compatible store, checking every sha256.

Run it once when a console moves from ``WHODUNNET_STORAGE=local`` to ``s3`` (docs/operations.md): each file is
checked against the sha256 recorded at upload before it is sent, sent in multipart parts, then read back from the
store and checked again. Nothing is deleted unless ``--delete-local`` is given, and then only a file whose copy in
the store was read back whole and right. Safe to run again: a file already in the store is only verified.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evidence import blobs
from evidence.models import Evidence


class Command(BaseCommand):
    help = "Copy evidence files from the local folder into the S3-compatible store and verify every sha256."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--from", dest="source", default=None, help="the local folder (WHODUNNET_EVIDENCE_DIR)")
        parser.add_argument("--delete-local", action="store_true", help="delete each local file once verified")

    def handle(self, *args: Any, **options: Any) -> None:
        if settings.STORAGE != "s3":
            raise CommandError("Set WHODUNNET_STORAGE=s3 (and the WHODUNNET_S3_* variables) to say where to move to.")
        local = blobs.LocalStore(Path(options["source"] or settings.EVIDENCE_DIR))
        store = blobs.store()
        moved = present = failed = 0
        for evidence in Evidence.objects.order_by("id").iterator():
            name = evidence.storage_name
            label = f"evidence {evidence.pk} ({evidence.filename}, {evidence.size:,} bytes)"
            if store.size(name) != evidence.size:
                if local.size(name) is None:
                    self.stderr.write(f"{label}: not in the store and not in {local.root}")
                    failed += 1
                    continue
                with local.open(name) as f:
                    if blobs.sha256_of(f).hexdigest() != evidence.sha256:
                        self.stderr.write(f"{label}: the local file does not match its recorded sha256; not moved")
                        failed += 1
                        continue
                store.put_file(name, local.path(name))
                moved += 1
            else:
                present += 1
            with store.open(name) as f:
                digest = blobs.sha256_of(f).hexdigest()
            if digest != evidence.sha256:
                self.stderr.write(f"{label}: the copy in the store does not match its sha256; removed from the store")
                store.delete(name)
                failed += 1
                continue
            self.stdout.write(f"{label}: verified in the store (sha256 {digest[:12]}…)")
            if options["delete_local"]:
                local.delete(name)
        self.stdout.write(f"{moved} moved, {present} already in the store, {failed} failed")
        if failed:
            raise CommandError(f"{failed} file(s) could not be moved and verified; see above.")
