from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0022_indexed_extraction_skipped"),
    ]

    operations = [
        migrations.AddField(
            model_name="syncstate",
            name="poll_snapshot",
            field=models.TextField(blank=True, null=True),
        ),
    ]
