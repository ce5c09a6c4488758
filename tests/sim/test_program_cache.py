"""sim.program caches the gateway's JSON under a digest of what the JSON depends on."""

from sim.program import sources_digest


def _tree(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_digest_changes_with_a_p4_source_and_with_the_compiler(tmp_path):
    p4src = _tree(tmp_path / "p4src", {"rdtcp.p4": "control C() { apply { } }",
                                       "include/h.p4": "header h_t { bit<8> a; }"})
    compiler = _tree(tmp_path / "compiler", {"backend/x.py": "X = 1\n", "p4include/core.p4": ""})
    before = sources_digest(p4src, compiler)
    assert sources_digest(p4src, compiler) == before                 # deterministic
    (compiler / "backend" / "x.py").write_text("X = 2\n")
    after_compiler = sources_digest(p4src, compiler)
    assert after_compiler != before
    (p4src / "include" / "h.p4").write_text("header h_t { bit<16> a; }")
    after_source = sources_digest(p4src, compiler)
    assert after_source != after_compiler
    (compiler / "README.md").write_text("not code")                 # not an input
    assert sources_digest(p4src, compiler) == after_source
