from typing import Any

from django.apps import AppConfig
from django.db import transaction


def _delete_bytes(sender: Any, instance: Any, **_: Any) -> None:
    """Evidence deleted (with its incident, or by hand): its bytes leave the store once the delete commits."""
    from evidence import blobs

    name = instance.storage_name
    transaction.on_commit(lambda: blobs.store().delete(name))


class EvidenceConfig(AppConfig):
    name = "evidence"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from evidence.models import Evidence

        post_delete.connect(_delete_bytes, sender=Evidence, dispatch_uid="evidence-bytes-in-store")
