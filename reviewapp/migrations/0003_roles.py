"""Create the three roles with their permissions, on every database."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from reviewapp.core import roles


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations ran; create them
    # now so the groups can be given them in this same migration.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    roles.ensure_roles(apps)


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=roles.ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0002_search_and_tally"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
