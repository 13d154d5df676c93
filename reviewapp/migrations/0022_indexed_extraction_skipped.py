# The list's "not read by accounted" filter (reviewapp.answers.unread): accounted's extraction_skipped, indexed.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0021_queue_index_with_company"),
    ]

    operations = [
        migrations.AddField(
            model_name="indexeditem",
            name="extraction_skipped",
            field=models.BooleanField(default=False),
        ),
        migrations.AddIndex(
            model_name="indexeditem",
            index=models.Index(
                condition=models.Q(("extraction_skipped", True)), fields=["created_at", "id"], name="index_unread_idx"
            ),
        ),
    ]
