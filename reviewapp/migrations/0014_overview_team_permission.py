"""The "view team overview" permission (who answered how many, on /overview/), given to the roles that hold it."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from reviewapp import roles


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
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
