"""Plain building blocks every layer may use: who may see what, roles, people's names, item states,
text, files, dates, caps. No Django request objects here."""
