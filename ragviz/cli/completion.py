"""``ragviz completion bash|zsh``: print a shell completion script for ``ragviz``.

The script is generated from the command line's own parser, so it completes every subcommand, each
subcommand's options, and the values of options with a fixed set of choices (``--format``,
``--response-format``, ...); elsewhere it completes file names. Install it with
``source <(ragviz completion bash)`` in ``~/.bashrc``, or ``source <(ragviz completion zsh)`` in
``~/.zshrc`` (zsh runs the same script through its ``bashcompinit``).
"""

from __future__ import annotations

import argparse
import shlex
import sys

__all__ = ["SHELLS", "add_completion_arguments", "bash_script", "run_completion_command", "zsh_script"]


SHELLS = ("bash", "zsh")


def add_completion_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser, nested: bool = True) -> tuple[list[str], dict[str, list[str]]]:
    """(every option string, {option: its choices} for options with fixed choices); a command with actions of
    its own (``ragviz judge list|show|...``) offers the actions' names and all their options."""
    options: list[str] = []
    choices: dict[str, list[str]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items() if nested else ():
                sub_options, sub_choices = _options(sub)
                options.extend([name, *(o for o in sub_options if o not in options)])
                choices.update(sub_choices)
            continue
        options.extend(action.option_strings)
        if action.option_strings and action.choices is not None:
            for option in action.option_strings:
                choices[option] = [str(c) for c in action.choices]
    return options, choices


def _positional_choices(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._actions:
        if (
            not action.option_strings
            and action.choices is not None
            and not isinstance(action, argparse._SubParsersAction)
        ):
            return [str(c) for c in action.choices]
    return []


def bash_script(parser: argparse.ArgumentParser) -> str:
    """A bash completion function for the ``ragviz`` parser *parser* (all subcommands loaded)."""
    commands = _subparsers(parser)
    top_options, _ = _options(parser, nested=False)
    cases = []
    for name, sub in commands.items():
        options, choices = _options(sub)
        value_cases = "".join(
            f'                {shlex.quote(option)}) COMPREPLY=($(compgen -W {shlex.quote(" ".join(values))} -- "$cur")); return;;\n'
            for option, values in choices.items()
        )
        positional = _positional_choices(sub)
        words = " ".join(options)
        cases.append(
            f"        {shlex.quote(name)})\n"
            f'            case "$prev" in\n{value_cases}            esac\n'
            f"            opts={shlex.quote(words)}\n"
            f"            values={shlex.quote(' '.join(positional))}\n"
            "            ;;\n"
        )
    return (
        "# ragviz completion for bash (source <(ragviz completion bash))\n"
        # cur and prev come as arguments ($2, $3: bash's `complete -F` and zsh's bashcompinit both pass them);
        # the subcommand is the first word that names one (zsh's arrays count from 1, bash's from 0)
        "_ragviz() {\n"
        '    local cur="$2" prev="$3" opts="" values="" cmd="" w\n'
        '    if [ "$COMP_CWORD" -eq 1 ]; then\n'
        f'        COMPREPLY=($(compgen -W {shlex.quote(" ".join([*commands, *top_options]))} -- "$cur"))\n'
        "        return\n"
        "    fi\n"
        '    for w in "${COMP_WORDS[@]}"; do\n'
        f'        case "$w" in {"|".join(shlex.quote(c) for c in commands)}) cmd="$w"; break;; esac\n'
        "    done\n"
        '    case "$cmd" in\n' + "".join(cases) + "    esac\n"
        '    if [[ "$cur" == -* ]]; then\n'
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))\n'
        '    elif [ -n "$values" ]; then\n'
        '        COMPREPLY=($(compgen -W "$values" -- "$cur"))\n'
        "    else\n"
        '        COMPREPLY=($(compgen -f -- "$cur"))\n'
        "    fi\n"
        "}\n"
        "complete -o filenames -F _ragviz ragviz\n"
    )


def zsh_script(parser: argparse.ArgumentParser) -> str:
    """The bash function run by zsh's ``bashcompinit``."""
    return (
        "# ragviz completion for zsh (source <(ragviz completion zsh))\n"
        "autoload -U +X compinit && { whence compdef >/dev/null || compinit; }\n"
        "autoload -U +X bashcompinit && bashcompinit\n" + bash_script(parser).split("\n", 1)[1]
    )


def run_completion_command(args: argparse.Namespace) -> int:
    """The ``completion`` command: print the script for ``args.shell``."""
    from ragviz.cli.main import build_parser

    parser = build_parser()
    sys.stdout.write(bash_script(parser) if args.shell == "bash" else zsh_script(parser))
    return 0
