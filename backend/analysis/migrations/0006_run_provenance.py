from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0005_reconciler_backoff"),
    ]

    operations = [
        migrations.AddField(
            model_name="analysisrun",
            name="provenance",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="correlation",
            name="inputs",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name="correlation",
            name="provenance",
            field=models.JSONField(default=dict),
        ),
    ]
