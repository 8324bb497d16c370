"""The core never imports torch or transformers: not on import, not when its CLI runs.

Each check runs in a fresh interpreter (this process has torch loaded already), with an import
hook that makes ``import torch`` / ``import transformers`` raise, so a lazy import inside a
function fails the check too, not only a top-level one. Commands of one check share their
interpreter (:func:`run_commands`).
"""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"

BLOCK = textwrap.dedent("""
    import sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "transformers", "matplotlib"):
                raise ImportError(f"the core imported {name}")
            return None

    sys.meta_path.insert(0, Block())
""")

CORE_MODULES = [
    "claimcheck",
    "claimcheck.outcomes",
    "claimcheck.fileio",
    "claimcheck.registry",
    "claimcheck.fields",
    "claimcheck.fileio",
    "claimcheck.docs",
    "claimcheck.tolerance",
    "claimcheck.interval",
    "claimcheck.units",
    "claimcheck.printed",
    "claimcheck.manuscript",
    "claimcheck.editor",
    "claimcheck.recorder",
    "claimcheck.verdict",
    "claimcheck.display",
    "claimcheck.settings",
    "claimcheck.book",
    "claimcheck.fingerprint",
    "claimcheck.fingerprint",
    "claimcheck.formula",
    "claimcheck.report",
    "claimcheck.runs",
    "claimcheck.cli",
    "claimcheck.cli.main",
    "claimcheck.cli.editor",
    "claimcheck.cli.runs",
    "claimcheck.scaffold",
    "claimcheck.cli.init",
    "claimcheck.cli.pages",
    "claimcheck.partial",
    "claimcheck.pages",
    "claimcheck.pages.words",
    "claimcheck.pages.claims_view",
    "claimcheck.pages.manuscript_view",
    "claimcheck.pages.summary",
    "claimcheck.pages.render",
]


def run_blocked(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + code, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_core_modules_import_without_torch():
    code = "import importlib\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\nprint('ok')"
    done = run_blocked(code, *CORE_MODULES)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_kits_entry_point_and_option_table_import_nothing_heavy():
    # every pytest run loads the kit's pytest11 module, which declares the kit's options
    done = run_blocked("import claimcheck.llm.plugin, claimcheck.llm.options\nprint('ok')")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_core_fingerprint_needs_no_torch():
    done = run_blocked(
        "from claimcheck.fingerprint import runner_fingerprint, describe\n"
        "fp = runner_fingerprint()\nassert fp['cpu'] and fp['cores']\nprint(describe(fp))"
    )
    assert done.returncode == 0, done.stderr


#: run each command (a JSON list of argv lists, the script's one argument) in turn, in one interpreter,
#: and print each one's exit code on stderr; an exception ends the script with its traceback
COMMANDS = textwrap.dedent("""
    import json
    from claimcheck.cli import main

    for argv in json.loads(sys.argv[1]):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        print(f"exit {code}: {argv[0]}", file=sys.stderr)
""")


def run_commands(*commands: list[str]) -> subprocess.CompletedProcess:
    """The core's commands, one after another in one fresh interpreter with torch & co blocked (one
    interpreter for several commands: each builds nothing another needs, and each imports what it
    imports whichever ran before)."""
    import json

    return run_blocked(COMMANDS, json.dumps([[str(a) for a in argv] for argv in commands]))


def test_cli_commands_run_without_torch():
    commands = [
        ["validate", "claims/ch15/claims.toml"],
        ["check-manuscript", str(DATA / "manuscript_zh.md"), "--registry", str(DATA / "ms_registry.toml")],
    ]
    done = run_commands(*commands)
    assert "the core imported" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr  # never a crash
    codes = re.findall(r"^exit (\S+): (\S+)$", done.stderr, re.M)
    assert [name for _, name in codes] == [argv[0] for argv in commands], done.stderr
    assert all(code in ("0", "1") for code, _ in codes), codes  # 1: the audit found something


def test_merge_and_diff_run_without_torch(tmp_path):
    import json

    doc = {
        "schema": 1,
        "runner": {"cpu": "x", "cores": 2},
        "settings": {"profile": "quick"},
        "claims": [{"id": "C01", "outcome": "passed", "measured": 1.0, "unit": "x", "tolerance": ">=1"}],
    }
    a, b = tmp_path / "a" / "claims.json", tmp_path / "b" / "claims.json"
    for p in (a, b):
        p.parent.mkdir()
        p.write_text(json.dumps(doc), encoding="utf-8")
    done = run_commands(["merge", a, b, "-o", tmp_path / "m.html"], ["diff", a, b])
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    assert re.findall(r"^exit (\S+): (\S+)$", done.stderr, re.M) == [("0", "merge"), ("0", "diff")], (
        done.stderr
    )


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function (read with ast, not run)."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_the_core_and_its_pytest_glue_never_import_the_kit():
    # the layers' arrows (CONTRIBUTING.md, the layers): claimcheck/ and claimcheck/plugin/ may not import
    # claimcheck/llm/, not even lazily inside a function (the recorder's comparison verdict takes
    # any object with the claimcheck.recorder.Comparison protocol instead)
    files = (
        sorted((ROOT / "claimcheck").glob("*.py"))
        + sorted((ROOT / "claimcheck" / "plugin").glob("*.py"))
        + sorted((ROOT / "claimcheck" / "pages").glob("*.py"))
        + sorted((ROOT / "claimcheck" / "cli").glob("*.py"))
    )
    assert len(files) > 20
    bad = {
        f"{f.relative_to(ROOT)}: {m}"
        for f in files
        for m in _imported_modules(f)
        if m == "claimcheck.llm" or m.startswith(("claimcheck.llm.", "torch", "transformers", "matplotlib"))
    }
    assert not bad, sorted(bad)


def test_report_and_summary_run_without_torch(tmp_path):
    import json

    doc = {
        "schema": 1,
        "runner": {"cpu": "x", "cores": 2},
        "settings": {"profile": "quick"},
        "claims": [
            {
                "id": "C01",
                "outcome": "failed",
                "measured": 1.0,
                "unit": "x",
                "tolerance": ">=2",
                "stated": "3",
                "locations": [{"file": "claims/test_x.py", "line": 3}],
            }
        ],
    }
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    main = "from claimcheck.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    done = run_blocked(main, "report", str(path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "claims.html").is_file()
    done = run_blocked(main, "summary", str(path))
    assert done.returncode == 0 and "| **C01**" in done.stdout, done.stderr
    done = run_blocked(main, "summary", str(path), "--annotations")
    assert done.returncode == 0 and done.stdout.startswith("::error file="), done.stderr


def module_graph(root: Path, package: str) -> dict[str, dict[str, str]]:
    """``{module: {imported module: "file:line"}}`` of a package's own modules, from every import
    statement of every file (at the top, inside functions, under ``if TYPE_CHECKING``), read with
    ast. ``from a import b`` is an edge to ``a.b`` when that is a module, else to ``a``; a module's
    own package ``__init__``, which Python runs first, is not counted as an edge."""
    import ast

    files = sorted((root / package).rglob("*.py"))
    names = {}
    for f in files:
        parts = list(f.relative_to(root).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f

    def resolve(name: str) -> str | None:
        while name and name not in names:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, str]] = {m: {} for m in names}
    for mod, f in names.items():
        here = mod.split(".") if f.name == "__init__.py" else mod.split(".")[:-1]
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in names else base for a in node.names]
            else:
                continue
            for t in targets:
                to = resolve(t)
                if to and to != mod:
                    graph[mod].setdefault(to, f"{f.relative_to(root)}:{node.lineno}")
    return graph


def import_cycles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """Each import cycle of ``graph`` (:func:`module_graph`) as the path that closes it,
    ``["a (a.py:3)", "b (b.py:9)", "a"]``: one per strongly connected group of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for group in groups:  # a shortest way back to the start, through the group
        start = min(group)
        came: dict[str, str] = {}
        todo = [start]
        while todo and start not in came:
            v = todo.pop(0)
            for w in sorted(graph[v]):
                if w in group and w not in came:
                    came[w] = v
                    todo.append(w)
        path = [start]
        while (path[-1] != start or len(path) == 1) and len(path) <= len(group):
            path.append(came[path[-1]])
        path.reverse()
        cycles.append([f"{a} ({graph[a][b]})" for a, b in zip(path, path[1:])] + [start])
    return cycles


def test_no_import_cycle_among_claimcheck_modules():
    # every import counts, those inside functions too: a cycle hidden in a function is still a
    # cycle a reader must keep in their head (CONTRIBUTING.md, the layers)
    graph = module_graph(ROOT, "claimcheck")
    assert len(graph) > 50 and sum(map(len, graph.values())) > 100  # the walk found the imports
    cycles = import_cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle_inside_a_function(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg.sub import b\n")  # a package importing its module: no cycle
    (pkg / "a.py").write_text("import os\n\ndef f():\n    from pkg.sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from .. import c\n")
    (pkg / "c.py").write_text("import pkg.a as a\n")
    (pkg / "d.py").write_text("from pkg import a\n")
    graph = module_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.sub.b": "pkg/a.py:4"}
    assert graph["pkg.sub.b"] == {"pkg.c": "pkg/sub/b.py:1"}
    assert import_cycles(graph) == [
        ["pkg.a (pkg/a.py:4)", "pkg.sub.b (pkg/sub/b.py:1)", "pkg.c (pkg/c.py:1)", "pkg.a"]
    ]


#: what the core may not name: the LLM kit's models and libraries, its lane, a chapter's claim ids
KIT_WORDS = re.compile(
    r"gpt-?2|smollm|llama|hugging ?face|\btorch|transformers|matplotlib|portable|\bC\d\d\b", re.I
)
#: claim ids the core shows as examples of an id's form ("e.g. C05=58"), no chapter's claim
EXAMPLE_IDS = {"C01", "C02", "C05", "C10", "C18", "C25", "C30"}
#: (file, word) the core still names, and why
STILL_NAMED = {  # file under claimcheck/, word: why
    ("fields.toml", "portable"): "the registry's `portable` field (a claim that holds for any causal LM)",
    ("registry.py", "portable"): "the registry's `portable` field",
    ("recorder.py", "portable"): "claim.check_form/on_model: the recorder's API for the portable form",
    ("recorder.py", "gpt-2"): "the portable form's messages: not the chapter's GPT-2 value",
    ("verdict.py", "portable"): "the verdict of a claim whose portable form another claim checks",
    ("fingerprint.py", "torch"): "the runner's table: merge/diff read files without the kit's hooks",
    ("fingerprint.py", "transformers"): "the runner's table: merge/diff read files without the kit's hooks",
    ("fingerprint.py", "gpt-2"): "the runner's table: whether the run had the kit's weights",
    ("pages/words.py", "gpt-2"): "the runner's words: the weights, the lane's never-compared note",
    ("pages/words.py", "portable"): "the runner's words: the lane's fingerprint field portable_lm",
    ("plugin/reporting.py", "portable"): "the fingerprint's portable_lm: the models the rows ran on",
}


def kit_words(root: Path) -> dict[tuple[str, str], list[str]]:
    """``{(file under claimcheck/, word): ["file:line: text", ...]}``: each kit word (:data:`KIT_WORDS`) that the code
    of the core (claimcheck/ but llm/) names, in a name, an attribute, an import or a string that
    is not a docstring; comments and docstrings may explain what the core does not import."""
    import ast

    found: dict[tuple[str, str], list[str]] = {}
    for f in sorted((root / "claimcheck").rglob("*.py")):
        rel = f.relative_to(root / "claimcheck").as_posix()
        if rel.startswith("llm/"):
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"))
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings:
                text = n.value
            elif isinstance(n, (ast.Name, ast.Attribute, ast.alias, ast.FunctionDef, ast.ClassDef, ast.arg)):
                text = getattr(n, "id", None) or getattr(n, "attr", None) or getattr(n, "name", None) or n.arg
            else:
                continue
            for m in KIT_WORDS.finditer(str(text)):
                word = m.group(0).lower().replace("gpt2", "gpt-2")
                if word.upper() not in EXAMPLE_IDS:
                    found.setdefault((rel, word), []).append(f"{rel}:{getattr(n, 'lineno', '?')}: {text!r}")
    for f in sorted((root / "claimcheck").rglob("*.toml")):  # the core's data (fields.toml): its values
        rel = f.relative_to(root / "claimcheck").as_posix()
        for number, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            for m in KIT_WORDS.finditer("" if line.startswith("#") else line):
                word = m.group(0).lower().replace("gpt2", "gpt-2")
                if word.upper() not in EXAMPLE_IDS:
                    found.setdefault((rel, word), []).append(f"{rel}:{number}: {line!r}")
    return found


def test_the_core_names_no_kit_concept():
    # the kit owns its options (claimcheck/llm/options.py), its lane's deselection and its runner
    # fields (hooks of claimcheck/plugin/hookspecs.py); what the core still names is listed above
    found = kit_words(ROOT)
    new = {key: places for key, places in found.items() if key not in STILL_NAMED}
    assert not new, "the core names the kit: " + "; ".join(p for places in new.values() for p in places[:3])
    gone = set(STILL_NAMED) - set(found)
    assert not gone, f"no longer named, drop from STILL_NAMED: {sorted(gone)}"


def test_the_kit_word_check_finds_a_help_text_naming_a_claim(tmp_path):
    (tmp_path / "claimcheck" / "llm").mkdir(parents=True)
    (tmp_path / "claimcheck" / "core.py").write_text(
        '"""No torch here (a docstring may say so)."""\n'
        'HELP = "a text file for C31"\n'
        'EXAMPLE = "e.g. C05=58"\n'
        "import transformers\n"
    )
    (tmp_path / "claimcheck" / "llm" / "kit.py").write_text('MODEL = "gpt2"\n')
    assert sorted(kit_words(tmp_path)) == [
        ("core.py", "c31"),
        ("core.py", "transformers"),
    ]
