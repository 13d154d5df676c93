# Joins two migrations written side by side: the overview (0014) and the search fields (0018).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('reviewapp', '0014_overview'),
        ('reviewapp', '0018_queuec_answered_type_and_search_fields'),
    ]

    operations = [
    ]
