"""Relocate Java packages inside jar files, in pure Python (what jarjar/maven-shade do).

Why: the Iceberg runtime jar shipped on PyPI has Iceberg's shaded Jackson stripped out, so
Iceberg fails with ``NoClassDefFoundError: org/apache/iceberg/shaded/com/fasterxml/jackson``.
pyspark ships the same Jackson (2.15.2); moving it into Iceberg's shaded package restores it
without Maven, Debian's jarjar, or root.

A class file names other classes only through CONSTANT_Utf8 entries of its constant pool
(internal names ``com/x/Y``, descriptors ``Lcom/x/Y;`` and, for reflection, ``com.x.Y``).
Rewriting those entries and the entry paths relocates a jar.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Iterable
from pathlib import Path


class RelocationError(RuntimeError):
    """A jar could not be relocated (not a class file, unknown constant-pool tag...)."""


# Constant-pool tag -> payload size in bytes, for every tag except Utf8 (1), which is sized.
_FIXED_SIZES = {
    3: 4,
    4: 4,
    5: 8,
    6: 8,
    7: 2,
    8: 2,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    15: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}


def _relocate_text(text: bytes, rules: list[tuple[bytes, bytes]]) -> bytes:
    for old, new in rules:
        text = text.replace(old, new)
    return text


def relocate_class(data: bytes, rules: list[tuple[bytes, bytes]]) -> bytes:
    """Return the class file ``data`` with every Utf8 constant rewritten by ``rules``."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise RelocationError("not a Java class file (bad magic number)")
    (count,) = struct.unpack(">H", data[8:10])
    out = bytearray(data[:10])
    pos, index = 10, 1
    while index < count:
        tag = data[pos]
        if tag == 1:
            (length,) = struct.unpack(">H", data[pos + 1 : pos + 3])
            text = _relocate_text(data[pos + 3 : pos + 3 + length], rules)
            out += bytes([1]) + struct.pack(">H", len(text)) + text
            pos += 3 + length
        elif tag in _FIXED_SIZES:
            size = 1 + _FIXED_SIZES[tag]
            out += data[pos : pos + size]
            pos += size
        else:
            raise RelocationError(f"unknown constant-pool tag {tag} at byte {pos}")
        # Long and double constants take two pool slots (JVMS 4.4.5).
        index += 2 if tag in (5, 6) else 1
    out += data[pos:]
    return bytes(out)


def _rules(packages: dict[str, str]) -> list[tuple[bytes, bytes]]:
    rules: list[tuple[bytes, bytes]] = []
    for old, new in packages.items():
        rules.append((old.replace(".", "/").encode() + b"/", new.replace(".", "/").encode() + b"/"))
        rules.append((old.encode() + b".", new.encode() + b"."))
    return rules


def relocate_jars(sources: Iterable[Path], target: Path, packages: dict[str, str]) -> int:
    """Merge ``sources`` into one jar at ``target`` with ``packages`` (old -> new) relocated.

    Multi-release variants and module descriptors are dropped: they would name the old packages.
    Returns the number of classes written. The target is written atomically.
    """
    rules = _rules(packages)
    tmp = target.with_suffix(".tmp")
    target.parent.mkdir(parents=True, exist_ok=True)
    written: set[str] = set()
    classes = 0
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        for source in sources:
            with zipfile.ZipFile(source) as jar:
                for info in jar.infolist():
                    name = info.filename
                    if info.is_dir() or name.startswith("META-INF/versions/"):
                        continue
                    if name.endswith("module-info.class") or name == "META-INF/MANIFEST.MF":
                        continue
                    data = jar.read(name)
                    if name.endswith(".class"):
                        data = relocate_class(data, rules)
                        classes += 1
                    elif name.startswith("META-INF/services/"):
                        data = _relocate_text(data, rules)
                    new_name = _relocate_text(name.encode(), rules).decode()
                    if new_name in written:
                        continue
                    written.add(new_name)
                    out.writestr(new_name, data)
    tmp.replace(target)
    return classes
