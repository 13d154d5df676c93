"""The overview (issue 27): the "view team overview" permission, given to the roles that hold it, and the copy of
accounted's question events the overview counts (filled by the next sync poll)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations, models

from reviewapp.core import roles


def grant(apps, schema_editor):
    # As 0003_roles: the permission row is normally created after every
    # migration ran; create it now so the roles get it in this migration
    # (post_migrate's ensure_roles gives it again, idempotently).
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    roles.ensure_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0013_merge_account_link_known_addresses"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="indexeditem",
            options={
                "ordering": ["-created_at", "-id"],
                "permissions": [
                    ("answer_question", "Can answer questions moved to the app"),
                    ("view_raw_context", "Can see the raw channel_context"),
                    ("use_preview", "Can use the prompt preview"),
                    ("view_team_overview", "Can see every person's answers on the overview"),
                ],
                "verbose_name": "inbox item",
                "verbose_name_plural": "inbox items",
            },
        ),
        migrations.AddField(
            model_name="syncstate",
            name="history_seq",
            field=models.BigIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="OverviewEvent",
            fields=[
                ("event_id", models.UUIDField(primary_key=True, serialize=False)),
                ("seq", models.BigIntegerField()),
                ("company_id", models.UUIDField()),
                ("item_id", models.UUIDField()),
                ("kind", models.CharField(max_length=10)),
                ("question_type", models.CharField(blank=True, max_length=20)),
                ("denied", models.BooleanField(default=False)),
                ("occurred_at", models.DateTimeField()),
                ("day", models.DateField()),
            ],
            options={
                "verbose_name": "overview event",
                "verbose_name_plural": "overview events",
                "indexes": [
                    models.Index(fields=["day", "kind", "denied"], name="overview_event_day_idx"),
                    models.Index(fields=["company_id", "day", "kind", "denied"], name="overview_event_company_day_idx"),
                ],
            },
        ),
        migrations.AddIndex(
            model_name="indexeditem",
            index=models.Index(
                condition=models.Q(("state_needs_answer", True)),
                fields=["company_id", "moved_to_app_at"],
                name="index_company_queue_idx",
            ),
        ),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
