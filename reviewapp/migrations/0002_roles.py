"""Create the three roles with their permissions, on every database."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

ROLE_PERMISSIONS = {
    "Bookkeeper": ["view_company", "view_inboxitem", "view_clarificationevent", "answer_question"],
    "Support": [
        "view_company",
        "view_inboxitem",
        "view_clarificationevent",
        "view_raw_context",
        "use_preview",
        "view_goldencase",
    ],
    "QA": [
        "view_company",
        "view_inboxitem",
        "view_clarificationevent",
        "view_raw_context",
        "use_preview",
        "view_goldencase",
        "add_goldencase",
    ],
}


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations ran; create them
    # now so the groups can be given them in this same migration.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for role, codenames in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role)
        perms = Permission.objects.filter(content_type__app_label="reviewapp", codename__in=codenames)
        group.permissions.set(perms)


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLE_PERMISSIONS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
