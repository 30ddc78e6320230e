"""MkDocs' own command line, as ``scalecore build`` and ``scalecore serve`` run it:
``python -m scalecore_generator.adapters.mkdocs.command build -f mkdocs.yml``.

MkDocs stops at the first setting it cannot read, before it loads any plugin, and says
"Config value 'theme': ..." with no line. Run from here, its settings' messages get their
mkdocs.yml line (site.ConfigMessageLines) even then; under plain ``mkdocs``, from the plugin's
first load on (every later rebuild of ``mkdocs serve``). A mkdocs.yml that is no valid YAML is said
at its line and column, with the fix, before MkDocs reads it."""

import sys

from mkdocs.__main__ import cli

from scalecore_generator.adapters.mkdocs import site


def config_file(argv: list[str]) -> str:
    for flag in ("-f", "--config-file"):
        if flag in argv[:-1]:
            return argv[argv.index(flag) + 1]
    return "mkdocs.yml"


def main() -> None:
    site.put_on("mkdocs.config", site.ConfigMessageLines(config_file(sys.argv[1:])))
    problem = site.yaml_problem(config_file(sys.argv[1:])) if sys.argv[1:2] in (["build"], ["serve"]) else None
    if problem:  # MkDocs would say it with no fix (site.yaml_problem)
        sys.exit(f"Error: {problem}")
    cli(prog_name="mkdocs")


if __name__ == "__main__":
    main()
