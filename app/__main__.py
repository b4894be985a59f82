"""The ``plantstore`` command (and ``python -m app``): the app's Flask CLI."""

from flask.cli import FlaskGroup

from . import create_app

main = FlaskGroup(
    name="plantstore", create_app=create_app, help="The plant store service's commands."
)

if __name__ == "__main__":
    main()
