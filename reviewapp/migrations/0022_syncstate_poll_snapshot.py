from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0021_queue_index_with_company"),
    ]

    operations = [
        migrations.AddField(
            model_name="syncstate",
            name="poll_snapshot",
            field=models.TextField(blank=True, null=True),
        ),
    ]
