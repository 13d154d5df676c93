"""The answered question's type and the search fields on the read model; the tally keyed by either type.

The list's question-type filter now matches an item's open question or the
one it answered (``IndexedItem.answered_question_type``), so the facet
tally (migration 0002) is kept per that type: the open question's, else the
answered one's. An item has at most one of them (``pending_question`` is
either open/moved or answered). The new column starts empty everywhere, so
the tally's keys stay what they were until ``RULES_VERSION`` 4 re-indexes
every row, and each of those updates moves its row's count to its new key:
no rebuild is needed here.

``search_fields`` holds ``search_text``'s parts by field, for "why did this
row match" on a searched page.
"""

from django.db import migrations, models

TABLE = "reviewapp_indexeditem"


def _tally_functions(question_type_sql: str) -> list[str]:
    from importlib import import_module

    tally = import_module("reviewapp.migrations.0002_search_and_tally")
    new = f"SELECT company_id, {tally._mask('r')} AS states, {question_type_sql}, 1 AS delta FROM new_rows r"
    old = f"SELECT company_id, {tally._mask('r')} AS states, {question_type_sql}, -1 AS delta FROM old_rows r"
    return [
        tally._function("inbox_state_tally_insert", tally._upsert(new)),
        tally._function("inbox_state_tally_delete", tally._upsert(old)),
        tally._function("inbox_state_tally_update", tally._upsert(f"{new} UNION ALL {old}")),
    ]


EITHER_TYPE = "COALESCE(r.open_question_type, r.answered_question_type, '') AS question_type"
OPEN_TYPE = "COALESCE(r.open_question_type, '') AS question_type"


class Migration(migrations.Migration):
    dependencies = [("reviewapp", "0013_merge_account_link_known_addresses")]

    operations = [
        migrations.AddField(
            model_name="indexeditem",
            name="answered_question_type",
            field=models.CharField(blank=True, max_length=20, null=True),
        ),
        migrations.AddField(
            model_name="indexeditem",
            name="search_fields",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunSQL(_tally_functions(EITHER_TYPE), _tally_functions(OPEN_TYPE)),
    ]
