"""scripts/mutate's work: the list, the guards' runs, the record and the page (see scripts/mutate --help)."""
import glob, hashlib, os, re, subprocess, sys, tempfile, time
import xml.etree.ElementTree as ElementTree

LIST, RECORD, PAGE = "Tests/mutations.tsv", "Tests/mutation-record.tsv", "docs/mutations.md"
# The suite runs as scripts/test runs it: at most 4 tests per core at once.
TEST_ENVIRONMENT = dict(os.environ)
TEST_ENVIRONMENT.setdefault("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", str(4 * (os.cpu_count() or 1)))
OUTCOMES = ["killed", "caught by others", "survived", "timed out", "did not build"]


def load():
    """The list: (number, path, original, mutated, promise, guards, key), numbered from 1."""
    mutations, unescape = [], lambda s: s.replace("\\n", "\n").replace("\\t", "\t")
    lines = [l for l in open(LIST, encoding="utf-8") if l.strip() and not l.startswith("#")]
    for number, line in enumerate(lines, start=1):
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 5:
            sys.exit(f"{LIST}: mutation {number} has {len(fields)} columns, not 5 (the guards are the fifth)")
        path, original, mutated, promise, guards = fields
        key = hashlib.sha1("\0".join(fields[:3]).encode()).hexdigest()[:10]
        guards = [g.strip() for g in guards.split(",") if g.strip()]
        mutations.append((number, path, unescape(original), unescape(mutated), promise, guards, key))
    return mutations


def labels(parameters):
    """`a: Int, _ b: String, c d: Bool` -> `a:_:c:`, as test ids spell a function's labels."""
    depth, parts, current = 0, [], ""
    for character in parameters:
        depth += character in "([<"
        depth -= character in ")]>"
        if character == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    parts.append(current)
    return "".join(p.split(":")[0].split()[0] + ":" for p in parts if p.strip())


def test_index():
    """Every test in Tests/: `Suite/function(labels:)` -> its display name, and the suites' names."""
    tests, suites = {}, set()
    owner_pattern = re.compile(r"^(?:@\w+(?:\([^\n]*\))?\s+)*(?:(?:final|private|fileprivate|public|package)\s+)*(?:struct|class|enum|extension|actor)\s+(\w+)", re.M)
    for path in glob.glob("Tests/**/*.swift", recursive=True):
        source = open(path, encoding="utf-8").read()
        owners = [(m.start(), m.group(1)) for m in owner_pattern.finditer(source)]
        suites.update(name for _, name in owners)
        for attribute in re.finditer(r'@Test\b(\(\s*"((?:[^"\\]|\\.)*)")?', source):
            function = re.compile(r"func\s+(\w+)\(([^)]*)\)").search(source, attribute.end())
            owner = [name for start, name in owners if start < attribute.start()]
            if function and owner:
                display = (attribute.group(2) or function.group(1)).replace('\\"', '"')
                tests[f"{owner[-1]}/{function.group(1)}({labels(function.group(2))})"] = display
    return tests, suites


def guard_problems(mutations, tests, suites):
    problems = []
    for number, _, _, _, _, guards, _ in mutations:
        if not guards:
            problems.append(f"#{number:02} names no guard")
        for guard in guards:
            if guard not in tests and not ("/" not in guard and guard in suites):
                problems.append(f"#{number:02} names a guard no test is: {guard}")
    return problems


def read_record():
    record = {}
    if os.path.exists(RECORD):
        for line in open(RECORD, encoding="utf-8"):
            if line.strip() and not line.startswith("#"):
                number, key, outcome, caught, date, commit, seconds = line.rstrip("\n").split("\t")
                record[int(number)] = dict(key=key, outcome=outcome, caught=caught, date=date, commit=commit, seconds=seconds)
    return record


def write_record(record):
    with open(RECORD, "w", encoding="utf-8") as out:
        out.write("# scripts/mutate's record, one line per mutation's last run: number, the mutation's key, outcome, "
                  "the tests that failed, date, commit, seconds (written by scripts/mutate; do not edit)\n")
        for number in sorted(record):
            r = record[number]
            out.write("\t".join([str(number), r["key"], r["outcome"], r["caught"], r["date"], r["commit"], r["seconds"]]) + "\n")


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def page(mutations, tests):
    record = read_record()
    current = {n: record[n] for n, *_, key in mutations if n in record and record[n]["key"] == key}
    counts = {o: sum(1 for r in current.values() if r["outcome"] == o) for o in OUTCOMES}
    dates = sorted({r["date"] for r in current.values()})
    minutes = sum(float(r["seconds"]) for r in current.values()) / 60
    name = lambda test: tests.get(test, test)
    lines = [
        "# Mutation testing",
        "",
        "<!-- Written by `scripts/mutate --page` from Tests/mutations.tsv and Tests/mutation-record.tsv; "
        "`scripts/mutate --check` fails when it is out of date. -->",
        "",
        "`Tests/mutations.tsv` lists one-line breaks of the code, each against a promise the README, the",
        "docs or the DocC article makes, and the tests that guard it. `scripts/mutate` applies each in",
        "turn, builds, and runs its guards: a mutation is killed only when one of its named guards fails.",
        "When none does, the whole suite runs, and the mutation is *caught by others* (the tests named)",
        "or *survived*; a timeout or a failed build is reported as such. The test command runs",
        "`scripts/mutate --check`: every mutation matches its code exactly once, every guard is a test",
        "that exists, and this page is what the list and the record give.",
        "",
        "```sh",
        "scripts/mutate            # all of them",
        "scripts/mutate 3 17       # only mutations 3 and 17 (numbers as in the list, from 1)",
        "scripts/mutate --check    # the list, its guards and this page, without building",
        "```",
        "",
        f"**{len(mutations)} mutations; last run of each "
        + (f"from {dates[0]} to {dates[-1]}" if len(dates) > 1 else f"on {dates[0]}" if dates else "not yet")
        + f"; {minutes:.0f} minutes of runs in all.** "
        + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts[o] or o == "killed")
        + (f", {len(mutations) - len(current)} not run since they last changed" if len(current) < len(mutations) else "")
        + ".",
        "",
        "| # | file | the promise broken | last run | caught by |",
        "| --- | --- | --- | --- | --- |",
    ]
    for number, path, _, _, promise, guards, _ in mutations:
        r = current.get(number)
        guard_names = "; ".join(name(g) if "/" in g else f"the suite {g}" for g in guards)
        if r is None:
            run_cell, caught_cell = ("not run" if number not in record else "not run since it changed"), f"(guards: {guard_names})"
        else:
            caught = [c for c in r["caught"].split(", ") if c]
            run_cell = f"{r['outcome'] if r['outcome'] == 'killed' else '**' + r['outcome'] + '**'}, {r['date']}, {r['commit']}"
            caught_cell = "; ".join(name(c) for c in caught[:2]) if caught else f"nothing (guards: {guard_names})"
        lines.append(f"| {number} | `{os.path.basename(path)}` | {cell(promise)} | {run_cell} | {cell(caught_cell)} |")
    return "\n".join(lines) + "\n"


def swift_test(filter_pattern, timeout):
    """Runs the tests (all, or those matching); returns (exit status or None on timeout, failed ids)."""
    with tempfile.TemporaryDirectory() as folder:
        xunit = os.path.join(folder, "result.xml")
        command = ["swift", "test", "--skip-build", "--xunit-output", xunit]
        command += ["--filter", filter_pattern] if filter_pattern else []
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=TEST_ENVIRONMENT)
            status, output = run.returncode, run.stdout + run.stderr
        except subprocess.TimeoutExpired:
            return None, []
        failed = []
        for path in glob.glob(os.path.join(folder, "*.xml")):
            try:
                for case in ElementTree.parse(path).iter("testcase"):
                    if case.find("failure") is not None:
                        failed.append(case.get("classname").split(".", 1)[-1] + "/" + case.get("name"))
            except ElementTree.ParseError:
                pass
        if status != 0 and not failed:
            # No result file (the test process ended): the failures it printed, by display name,
            # else how it ended.
            failed = sorted(set(re.findall(r'✘ Test "?([^"]+?)"? (?:recorded|failed)', output)))[:3]
            failed = failed or [f"the test process ended with status {status}: " + " / ".join(output.strip().splitlines()[-2:])[:200]]
        return status, sorted(set(failed))


def guard_pattern(guards):
    return "|".join(re.escape(g) + ("" if "/" in g else "/") for g in guards)


def run(mutations):
    record, commit = read_record(), subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    started, tally = time.time(), {o: [] for o in OUTCOMES}
    for number, path, original, mutated, promise, guards, key in mutations:
        began = time.time()
        text = open(path, encoding="utf-8").read()
        try:
            open(path, "w", encoding="utf-8").write(text.replace(original, mutated))
            if subprocess.run(["swift", "build", "--build-tests"], capture_output=True).returncode != 0:
                outcome, caught = "did not build", []
            else:
                status, caught = swift_test(guard_pattern(guards), 600)
                if status is None:
                    outcome = "timed out"
                elif status != 0:
                    # Only the guards ran: a failure here is theirs, named when the run got to write its
                    # result, else the guards' process ended (a crash inside a guard).
                    outcome, caught = "killed", caught or ["the guards' process ended"]
                else:
                    status, caught = swift_test(None, 900)
                    outcome = "timed out" if status is None else "caught by others" if status != 0 else "survived"
        finally:
            open(path, "w", encoding="utf-8").write(text)
        seconds = time.time() - began
        tally[outcome].append(number)
        record[number] = dict(key=key, outcome=outcome, caught=", ".join(caught), date=time.strftime("%Y-%m-%d"),
                              commit=commit, seconds=f"{seconds:.0f}")
        write_record(record)
        by = f"\n      by: {'; '.join(caught[:3])}" if caught else ""
        print(f"#{number:02} {outcome:<16} {path}: {promise}{by}  ({seconds:.0f} s)", flush=True)
    subprocess.run(["swift", "build", "--build-tests"], capture_output=True)
    print(f"\n{len(mutations)} mutations in {(time.time() - started) / 60:.0f} min: "
          + ", ".join(f"{len(tally[o])} {o} {tally[o] if o != 'killed' else ''}".rstrip() for o in OUTCOMES))
    return 0 if len(tally["killed"]) == len(mutations) else 1


def main(args):
    mutations = load()
    tests, suites = test_index()
    stale = [(n, p, open(p, encoding="utf-8").read().count(o) if os.path.exists(p) else 0) for n, p, o, *_ in mutations]
    stale = [(n, p, c) for n, p, c in stale if c != 1]
    for number, path, count in stale:
        print(f"#{number:02} STALE ({count} matches) {path}")
    if "--page" in args:
        open(PAGE, "w", encoding="utf-8").write(page(mutations, tests))
        print(f"wrote {PAGE}")
        return 0
    if "--check" in args:
        problems = guard_problems(mutations, tests, suites)
        if open(PAGE, encoding="utf-8").read() != page(mutations, tests):
            problems.append(f"{PAGE} is not what the list and the record give: run scripts/mutate --page")
        for problem in problems:
            print(problem)
        print(f"{len(mutations)} mutations, {len(stale)} stale, {len(problems)} other problems")
        return 1 if stale or problems else 0
    chosen = {int(a) for a in args if a.isdigit()}
    if stale:
        return 1
    return run([m for m in mutations if not chosen or m[0] in chosen])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
