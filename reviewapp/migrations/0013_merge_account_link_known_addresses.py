# Joins two migrations written side by side: the account link (0010) and known login addresses (0012).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('reviewapp', '0010_actor_account_link'),
        ('reviewapp', '0012_edges_known_login_address'),
    ]

    operations = [
    ]
