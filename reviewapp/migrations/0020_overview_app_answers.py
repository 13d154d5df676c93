"""The app's answers in the overview's copy (``OverviewEvent``), with their company and person.

The overview counted them from the app's log, looking each one's company up in
the read model on every page (290 ms for a bookkeeper at 1 M items); the sync
poll now copies them beside the chat's (``reviewapp.overview.events``). This
migration copies the log as it stands, so the overview counts the same
answers before and after it; the next poll carries on from the highest log id
copied. The indexes are dropped for the copy and built after it, with the
person in them, so the overview's one statement reads the indexes alone.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# As reviewapp.overview.events._COPY_ANSWERS when this migration was written.
BACKFILL = """
    INSERT INTO reviewapp_overviewevent
        (event_id, seq, company_id, item_id, kind, question_type, denied, occurred_at, day, person_id, person_label)
    SELECT md5('reviewapp-answer-' || e.id)::uuid, e.id, i.company_id, e.item_id, 'app', e.question_type,
           coalesce(e.payload -> 'answer' -> 'denied' = 'true'::jsonb, false),
           e.occurred_at, (e.occurred_at AT TIME ZONE 'Europe/Stockholm')::date, e.actor_id, e.actor_label
    FROM reviewapp_clarificationevent e
    LEFT JOIN reviewapp_indexeditem i ON i.id = e.item_id
    WHERE e.event_type = 'ChannelQuestionAnswered'
      AND e.channel = 'app'
      AND (e.payload -> 'amended') IS DISTINCT FROM 'true'::jsonb
    ON CONFLICT (event_id) DO NOTHING
"""


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0019_merge_overview_search_fields"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(model_name="overviewevent", name="overview_event_day_idx"),
        migrations.RemoveIndex(model_name="overviewevent", name="overview_event_company_day_idx"),
        migrations.AddField(
            model_name="overviewevent",
            name="person",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="overviewevent",
            name="person_label",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AlterField(
            model_name="overviewevent",
            name="company_id",
            field=models.UUIDField(blank=True, null=True),
        ),
        # Checked now, not at commit: pending checks on the table would stop the CREATE INDEX below.
        migrations.RunSQL(
            ["SET CONSTRAINTS ALL IMMEDIATE", BACKFILL, "SET CONSTRAINTS ALL DEFERRED"],
            "DELETE FROM reviewapp_overviewevent WHERE kind = 'app'",
        ),
        migrations.AddIndex(
            model_name="overviewevent",
            index=models.Index(fields=["day", "kind", "person", "denied"], name="overview_event_day_idx"),
        ),
        migrations.AddIndex(
            model_name="overviewevent",
            index=models.Index(
                fields=["company_id", "day", "kind", "person", "denied"], name="overview_event_company_day_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="overviewevent",
            index=models.Index(
                condition=models.Q(("kind", "app"), ("person__isnull", True)),
                fields=["day"],
                include=("company_id", "person_label", "denied"),
                name="overview_event_unnamed_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="overviewevent",
            index=models.Index(condition=models.Q(("kind", "app")), fields=["seq"], name="overview_event_app_seq_idx"),
        ),
    ]
