# The snapshot time a person gave becomes one of three provenance fields (host, role, taken at); its data is kept.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("evidence", "0004_upload"),
    ]

    operations = [
        migrations.RenameField(model_name="evidence", old_name="captured_at", new_name="taken_at"),
        migrations.AddField(
            model_name="evidence",
            name="host",
            field=models.CharField(blank=True, max_length=100, null=True),
        ),
        migrations.AddField(
            model_name="evidence",
            name="role",
            field=models.CharField(
                blank=True,
                choices=[
                    ("client", "Client"),
                    ("server", "Server"),
                    ("middlebox", "Middlebox or router"),
                    ("hypervisor", "Hypervisor"),
                    ("other", "Other"),
                ],
                max_length=12,
                null=True,
            ),
        ),
    ]
