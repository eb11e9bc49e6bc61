"""The module: policies, self-tests, state, scopes, counters and the exception hierarchy."""

import os
import subprocess
import sys
import textwrap

import pytest

import regula


@pytest.mark.parametrize("policy", ["default", "fips-140-3", "gm"])
def test_builtin_policies_load_and_pass_their_self_tests(policy):
    module = regula.Module(policy)
    assert module.state == "operational"
    assert module.policy == policy
    assert module.failed_test is None
    results = module.self_tests()
    assert results and all(passed for _, passed, _ in results)
    assert repr(module) == f"<regula.Module policy='{policy}' state='operational'>"


def test_default_policy_is_the_default():
    assert regula.Module().policy == "default"


def test_modes(default, fips, gm):
    assert default.mode == "permissive"
    assert fips.mode == "strict" and gm.mode == "strict"


def test_unknown_policy_is_invalid_input():
    with pytest.raises(regula.InvalidInput) as info:
        regula.Module("no-such-policy")
    assert isinstance(info.value, ValueError)
    assert info.value.exit_code == 2


def test_policy_file_narrows_a_profile(tmp_path):
    path = tmp_path / "payments.toml"
    path.write_text(
        textwrap.dedent(
            """
            base = "fips-140-3"
            name = "payments"
            allow = ["aes-256-gcm", "sha256", "ctr-drbg"]
            """
        )
    )
    module = regula.Module(path)  # os.PathLike
    assert module.policy == "payments"
    assert module.profile == "fips-140-3"
    assert module.digest("sha256", b"abc").indicator.policy == "payments"
    assert module.approves("aes-256-gcm")
    assert not module.serves("sha384")
    with pytest.raises(regula.NotApproved):
        module.digest("sha384", b"abc")


def test_policy_file_error_names_the_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('base = "fips-140-3"\nallow = ["md55"]\n')
    with pytest.raises(regula.InvalidInput, match="bad.toml:2"):
        regula.Module(str(path))


def test_not_approved_carries_the_rule(fips):
    with pytest.raises(regula.NotApproved) as info:
        fips.hash("md5")
    error = info.value
    assert error.exit_code == 3
    assert error.algorithm == "md5"
    assert error.policy == "fips-140-3"
    assert error.reason
    assert error.alternative == "sha256"
    assert isinstance(error, regula.RegulaError)


def test_gm_refuses_what_is_not_gm(gm):
    for refused in (lambda: gm.hash("sha256"), lambda: gm.aead("aes-128-gcm", bytes(16))):
        with pytest.raises(regula.NotApproved):
            refused()
    assert gm.digest("sm3", b"abc").indicator.approved


def test_permissive_default_serves_legacy_flagged(default):
    digest = default.digest("md5", b"abc")
    # RFC 1321 appendix A.5.
    assert digest.hex() == "900150983cd24fb0d6963f7d28e17f72"
    assert digest.indicator.approved is False
    assert digest.indicator.policy == "default"


def test_unknown_algorithm_and_wrong_family_are_invalid_input(default):
    with pytest.raises(regula.InvalidInput, match="unknown algorithm"):
        default.hash("sha-257")
    with pytest.raises(regula.InvalidInput, match="digest"):
        default.aead("sha256", bytes(32))


def test_exception_hierarchy_mirrors_the_cli_exit_codes():
    assert regula.InvalidTag.exit_code == 1
    assert regula.InvalidSignature.exit_code == 1
    assert regula.InvalidInput.exit_code == 2
    assert regula.NotApproved.exit_code == 3
    assert regula.ModuleErrorState.exit_code == 4
    for error in (
        regula.InvalidTag,
        regula.InvalidSignature,
        regula.InvalidInput,
        regula.NotApproved,
        regula.ModuleErrorState,
    ):
        assert issubclass(error, regula.RegulaError)
    assert issubclass(regula.InvalidInput, ValueError)


def test_scopes_aggregate_their_own_operations(default):
    scope = default.scope()
    other = default.scope()
    assert scope.indicator_state == "unset"
    scope.digest("sha256", b"x")
    assert scope.indicator_state == "approved"
    scope.digest("md5", b"x")
    assert scope.indicator_state == "not-approved"
    scope.digest("sha256", b"x")
    assert scope.indicator_state == "not-approved"  # sticky
    assert other.indicator_state == "unset"
    scope.reset_indicator()
    assert scope.indicator_state == "unset"


def test_counters_count_module_wide():
    module = regula.Module("default")
    module.digest("sha256", b"a")
    module.scope().digest("sha256", b"b")
    module.digest("md5", b"c")
    rows = {(row["algorithm"], row["service"]): row for row in module.counters()}
    assert rows[("sha256", "digest")]["approved"] == 2
    assert rows[("md5", "digest")]["not_approved"] == 1


def test_indicator_value_semantics(default):
    first = default.digest("sha256", b"a").indicator
    second = default.digest("sha256", b"b").indicator
    assert first == second and hash(first) == hash(second)
    assert first != default.digest("md5", b"a").indicator
    assert first.as_dict() == {
        "algorithm": "sha256",
        "service": "digest",
        "approved": True,
        "policy": "default",
    }
    assert repr(first) == (
        "Indicator(algorithm='sha256', service='digest', approved=True, policy='default')"
    )


def test_algorithms_and_build_info():
    names = regula.algorithms()
    assert {"aes-256-gcm", "sm3", "ml-kem-768", "sm2-sign"} <= set(names)
    info = regula.build_info()
    assert info["regula_version"] == regula.__version__
    assert "AWS-LC" in info["backend"]


BROKEN = """
import regula
module = regula.Module("fips-140-3")
assert module.state == "error", module.state
assert module.failed_test == "{name}", module.failed_test
try:
    module.digest("sha256", b"abc")
except regula.ModuleErrorState as error:
    assert error.exit_code == 4 and error.failed_test == "{name}"
    print("refused")
"""


def test_a_failed_self_test_refuses_every_service():
    # REGULA_BREAK_SELFTEST is read when a module loads; a child process keeps it local.
    name = "SHA2-256"
    env = dict(os.environ, REGULA_BREAK_SELFTEST=name)
    result = subprocess.run(
        [sys.executable, "-c", BROKEN.format(name=name)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "refused"
