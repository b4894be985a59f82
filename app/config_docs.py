"""The tables of every setting in docs/configuration.md, made from the features' specs:
``flask --app wsgi settings table docs/configuration.md`` (``make settings-table``) writes
them between the page's markers, and tests/test_documentation.py checks the page holds them."""

import pathlib

import click
from flask import current_app
from flask.cli import AppGroup

from . import config

BEGIN = "<!-- Made from the settings' specs (app/config_spec.py): make settings-table -->"
END = "<!-- End of the tables made from the settings' specs -->"

settings_cli = AppGroup("settings", help="The service's settings.")


def shown_default(setting):
    """A setting's default as the table shows it: the value, and what it stands for."""
    default, meaning = setting.default, setting.default_meaning
    if default is None:
        return meaning
    if default == "":
        return f"none: {meaning}" if meaning else "none"
    text = f"`{default}`" if isinstance(default, str) else str(default)
    return f"{text} ({meaning})" if meaning else text


def tables(features):
    """A markdown table of each feature's settings, under its title."""
    lines = []
    for feature in features:
        lines += [f"### {feature.title}", ""]
        if feature.about:
            lines += [feature.about, ""]
        lines += ["| Variable | Meaning | Default |", "|---|---|---|"]
        for setting in feature.settings:
            lines.append(f"| `{setting.variable}` | {setting.meaning} | {shown_default(setting)} |")
        lines.append("")
    return "\n".join(lines)


def with_tables(page, features):
    """The text of a page with the tables between its markers made anew."""
    head, begin, rest = page.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise click.ClickException(f"no {BEGIN} ... {END} in the page")
    return f"{head}{BEGIN}\n\n{tables(features)}\n{END}{tail}"


@settings_cli.command("table")
@click.argument("page", required=False, type=click.Path(dir_okay=False, path_type=pathlib.Path))
def table_command(page):
    """Print the tables of every setting, or write them into PAGE between its markers."""
    features = config.features_of(current_app)
    if page is None:
        click.echo(tables(features), nl=False)
    else:
        page.write_text(with_tables(page.read_text(), features))
