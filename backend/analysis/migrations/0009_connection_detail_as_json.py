"""A connection row's SYN-ACK count as a column (the table filters by it), and its detail kept as ``json``, not
``jsonb`` (decision 0024: written in bulk, read whole, never queried inside)."""

from django.db import migrations, models

import analysis.models


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0008_run_packet_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="captureconnection",
            name="synack_count",
            field=models.IntegerField(default=0),
            preserve_default=False,
        ),
        migrations.RunSQL(
            "UPDATE analysis_captureconnection SET synack_count = COALESCE((detail->>'synack_count')::int, 0)",
            migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name="captureconnection",
            name="detail",
            field=analysis.models.JSONDocument(),
        ),
    ]
