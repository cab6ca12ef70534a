"""The Studio: server-rendered pages to look at definitions and runs, with little script.

Pages are Jinja2 templates (autoescaped) around the service's own SVG drawings, so a page
shows its drawing with scripts off; one script file adds pan and zoom (svg-pan-zoom), a
panel per step, live states from the event stream and the operator's buttons, calling the
workflow API with the session cookie and its CSRF token. :func:`studio_routes` lists the
routes; ``create_app`` adds them when the service has a workflow runtime.
"""

from renderer.studio.routes import studio_routes

__all__ = ["studio_routes"]
