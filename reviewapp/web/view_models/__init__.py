"""The answer screens' view models: what the panel, the preview and a posted answer show; nothing below imports them."""
