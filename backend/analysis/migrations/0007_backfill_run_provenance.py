"""Runs finished before provenance existed get what the engine infers from their file's content and name."""

from typing import Any

from django.db import migrations


def backfill(apps: Any, schema_editor: Any) -> None:
    from whodunnet.provenance import infer

    AnalysisRun = apps.get_model("analysis", "AnalysisRun")
    runs = AnalysisRun.objects.filter(provenance__isnull=True, status="done").select_related("evidence")
    for run in runs.iterator(chunk_size=500):
        run.provenance = infer(run.evidence.filename, run.evidence.kind, run.summary or {}).to_json()
        run.save(update_fields=["provenance"])


def forget(apps: Any, schema_editor: Any) -> None:
    apps.get_model("analysis", "AnalysisRun").objects.update(provenance=None)


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0006_run_provenance"),
    ]

    operations = [migrations.RunPython(backfill, forget)]
