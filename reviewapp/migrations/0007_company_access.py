import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0006_golden_maintenance"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="CompanyAssignment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("company_id", models.UUIDField(verbose_name="company")),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="company_assignments",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "company assignment",
                "verbose_name_plural": "company assignments",
                "permissions": [("view_all_companies", "Can see every company")],
                "constraints": [
                    models.UniqueConstraint(fields=("user", "company_id"), name="one_assignment_per_company")
                ],
            },
        ),
    ]
