"""API tokens get a name and an expiry; login throttling gets its own table.

Tokens made before expiry existed get the default lifetime from today, so a
script using one keeps working for that long instead of stopping at once.
"""

import datetime

from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


def give_old_tokens_an_expiry(apps, schema_editor):
    days = getattr(settings, "API_TOKEN_DEFAULT_DAYS", 90)
    ApiToken = apps.get_model("reviewapp", "ApiToken")
    ApiToken.objects.using(schema_editor.connection.alias).filter(expires_at__isnull=True).update(
        expires_at=timezone.now() + datetime.timedelta(days=days)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0003_roles"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="apitoken",
            options={
                "ordering": ["-created_at", "-pk"],
                "verbose_name": "API token",
                "verbose_name_plural": "API tokens",
            },
        ),
        migrations.AddField(
            model_name="apitoken",
            name="name",
            field=models.CharField(blank=True, default="", max_length=100, verbose_name="name"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(null=True, verbose_name="expires"),
        ),
        migrations.RunPython(give_old_tokens_an_expiry, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(verbose_name="expires"),
        ),
        migrations.CreateModel(
            name="LoginThrottle",
            fields=[
                ("key", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("count", models.PositiveIntegerField(default=0)),
                ("created_at", models.DateTimeField()),
                ("expires_at", models.DateTimeField(db_index=True)),
            ],
            options={
                "verbose_name": "login throttle entry",
                "verbose_name_plural": "login throttle entries",
            },
        ),
    ]
