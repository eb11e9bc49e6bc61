"""Regula: a cryptographic module with a policy in front of it.

Load a policy into a :class:`Module` (``"default"``, ``"fips-140-3"``, ``"gm"``, ``"cnsa-2.0"``
or a TOML policy file); loading runs the power-on self-tests. The module then serves only what
the policy allows, and every result carries the operation's service :class:`Indicator`::

    import regula

    module = regula.Module("fips-140-3")
    aead = module.aead("aes-256-gcm", module.random(32))
    nonce, ciphertext = aead.seal(b"payload", b"header")   # module-generated nonce: approved
    assert ciphertext.indicator.approved
    assert aead.decrypt(nonce, ciphertext, b"header") == b"payload"

Results are :class:`Served` objects: the output ``bytes`` (``.data``, or ``bytes(result)``
without a copy) with the operation's ``.indicator``; a ``Served`` compares, hashes and slices as
its bytes and, on Python 3.12+, is a buffer. Key material comes as :class:`Secret`, whose
``repr()`` hides the bytes. Refusals raise :class:`NotApproved`; bad tags :class:`InvalidTag`;
bad signatures :class:`InvalidSignature`; malformed input :class:`InvalidInput` (a
``ValueError``); anything after a failed self-test :class:`ModuleErrorState`. All derive from
:class:`RegulaError`.

Primitives come from AWS-LC (through aws-lc-rs), SM2/SM3/SM4 from Regula's regula-sm crate; this
package is a thin binding and implements no cryptography.
"""

from ._regula import (
    AEAD,
    AgreementKey,
    AlgorithmInfo,
    Cipher,
    DecryptionKey,
    Hash,
    Indicator,
    KemKey,
    MacContext,
    MacKey,
    Module,
    SigningKey,
    __version__,
    algorithms,
    build_info,
)
from ._types import (
    InvalidInput,
    InvalidSignature,
    InvalidTag,
    ModuleErrorState,
    NotApproved,
    RegulaError,
    Secret,
    Served,
)


def algorithm_info(name: str) -> AlgorithmInfo:
    """The registry row of the algorithm called ``name`` (any case): its family, provider, OID,
    OpenSSL and ACVP names, hash, PKCS#11 mechanisms, and its key, nonce, IV, tag, block,
    output, public key, signature and ciphertext sizes. ``algorithms()`` lists the names::

        rows = [regula.algorithm_info(name) for name in regula.algorithms()]

    Raises :class:`InvalidInput` for a name the registry does not have.
    """
    return AlgorithmInfo(name)


__all__ = [
    "AEAD",
    "AlgorithmInfo",
    "AgreementKey",
    "Cipher",
    "DecryptionKey",
    "Hash",
    "Indicator",
    "InvalidInput",
    "InvalidSignature",
    "InvalidTag",
    "KemKey",
    "MacContext",
    "MacKey",
    "Module",
    "ModuleErrorState",
    "NotApproved",
    "RegulaError",
    "Secret",
    "Served",
    "SigningKey",
    "__version__",
    "algorithm_info",
    "algorithms",
    "build_info",
]
