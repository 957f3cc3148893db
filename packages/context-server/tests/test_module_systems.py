"""Module systems followed to the declaring file: one fixture per construct, each with its
exact dependency and usage sets (re-exports, namespace packages, preprocessor branches,
lexical import scope, build-tag twins, workspace self-imports)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from conftest import direct, service_for
from context_server.core.languages import script

Project = Callable[[Mapping[str, str | bytes]], Path]


def users(root: Path, name: str) -> list[str]:
    service = service_for(root)
    index = service.index(str(root))
    return sorted(usage.path for usage in service.usages(index, name).users)


def context(root: Path, name: str, depth: int = 1) -> list[str]:
    service = service_for(root)
    index = service.index(str(root))
    return sorted(item.path for item in service.select(index, name, depth).dependencies)


# --- TypeScript: barrels, namespaces, workspace self-imports ------------------------------------
BARRELS = {
    # build output ignored, the tracked manifest included (git ignores no tracked file)
    "pkg/.gitignore": "**/*.js\n**/package.json\n",
    "pkg/package.json": """{
      "name": "@acme/shapes",
      "exports": {
        ".": {"types": "./dist/index.d.ts", "source": "./src/index.ts"},
        "./geo/*": "./src/geo/*.ts"
      }
    }""",
    "pkg/src/index.ts": 'export * from "./geo";\n'
    'export { Palette as Colours } from "./paint/palette";\n'
    'import * as units from "./units";\nexport { units };\n',
    "pkg/src/geo/index.ts": 'export { Circle } from "./circle";\nexport * from "./square";\n',
    "pkg/src/geo/circle.ts": "export class Circle { r = 1; }\n",
    "pkg/src/geo/square.ts": "export class Square {}\nexport interface Side { n: number }\n",
    "pkg/src/paint/palette.ts": "export class Palette {}\n",
    "pkg/src/units.ts": "export const cm = 1;\nexport function mm(): number { return 0.1; }\n",
    "pkg/src/draw.ts": 'import { Circle, Square, Colours } from "./index";\n'
    'import * as geo from "./geo";\nimport { units } from ".";\n'
    "// Circle in a comment; 'Palette' in a string\n"
    "export function draw(c: Circle, s: Square): geo.Square {\n"
    "  new Colours();\n  return units.cm > 0 ? s : new geo.Square();\n}\n",
    "pkg/test/draw.test.ts": 'import { Circle } from "@acme/shapes";\n'
    'import { Square } from "@acme/shapes/geo/square";\n'
    "export const shapes = [new Circle(), new Square()];\n",
    "pkg/src/loop/a.ts": 'export * from "./b";\nexport const A = 1;\n',
    "pkg/src/loop/b.ts": 'export * from "./a";\n',
    "pkg/src/cyc.ts": 'import { A, Missing } from "./loop/b";\nexport const both = [A, Missing];\n',
}


def test_ts_names_are_followed_through_barrels_to_their_declaring_files(
    project: Project,
) -> None:
    root = project(BARRELS)
    assert direct(root) == {
        "pkg/src/index.ts": [
            "pkg/src/geo/index.ts",
            "pkg/src/paint/palette.ts",
            "pkg/src/units.ts",
        ],
        "pkg/src/geo/index.ts": ["pkg/src/geo/circle.ts", "pkg/src/geo/square.ts"],
        "pkg/src/geo/circle.ts": [],
        "pkg/src/geo/square.ts": [],
        "pkg/src/paint/palette.ts": [],
        "pkg/src/units.ts": [],
        "pkg/src/draw.ts": [
            "pkg/src/geo/circle.ts",
            "pkg/src/geo/square.ts",
            "pkg/src/paint/palette.ts",
            "pkg/src/units.ts",
        ],
        # the package importing itself by its package.json name and exports
        "pkg/test/draw.test.ts": ["pkg/src/geo/circle.ts", "pkg/src/geo/square.ts"],
        "pkg/src/loop/a.ts": ["pkg/src/loop/b.ts"],
        "pkg/src/loop/b.ts": ["pkg/src/loop/a.ts"],
        # A found through the cycle; Missing declared nowhere: the module named
        "pkg/src/cyc.ts": ["pkg/src/loop/a.ts", "pkg/src/loop/b.ts"],
    }
    assert users(root, "Circle") == [
        "pkg/src/draw.ts",
        "pkg/src/geo/index.ts",
        "pkg/test/draw.test.ts",
    ]
    # a star re-export passes the module on without naming Square
    assert users(root, "Square") == ["pkg/src/draw.ts", "pkg/test/draw.test.ts"]
    assert users(root, "Palette") == ["pkg/src/draw.ts", "pkg/src/index.ts"]
    assert users(root, "Side") == []


def test_names_destructured_from_a_dynamic_import_or_require_are_imports(
    project: Project,
) -> None:
    root = project(
        {
            "src/errors.ts": "export class HTTPError {}\nexport class TimeoutError {}\n",
            "src/index.ts": 'export * from "./errors";\n',
            "test/retry.ts": "export async function t(e: unknown) {\n"
            '  const {HTTPError} = await import("../src/index.js");\n'
            "  return e instanceof HTTPError;\n}\n",
            "lib/use.js": 'const {TimeoutError: Late} = require("../src/errors");\n'
            "module.exports = () => new Late();\n",
            "lib/all.js": 'const errors = require("../src/errors");\nmodule.exports = errors;\n',
        }
    )
    assert direct(root) == {
        "src/errors.ts": [],
        "src/index.ts": ["src/errors.ts"],
        "test/retry.ts": ["src/errors.ts"],
        "lib/use.js": ["src/errors.ts"],
        "lib/all.js": ["src/errors.ts"],
    }
    # (a star re-export passes the module on without naming either)
    assert users(root, "HTTPError") == ["test/retry.ts"]
    assert users(root, "TimeoutError") == ["lib/use.js"]


def test_a_re_export_cycle_terminates_with_a_note(project: Project) -> None:
    root = project(BARRELS)
    service = service_for(root)
    index = service.index(str(root))
    selection = service.select(index, "pkg/src/cyc.ts", 1)
    assert [item.path for item in selection.dependencies] == [
        "pkg/src/loop/a.ts",
        "pkg/src/loop/b.ts",
    ]
    assert selection.notes == (
        "re-export cycle pkg/src/loop/b.ts -> pkg/src/loop/a.ts -> pkg/src/loop/b.ts "
        "(followed once)",
    )


def test_a_long_re_export_chain_is_cut_with_a_note(project: Project) -> None:
    files = {f"src/m{n}.ts": f'export * from "./m{n + 1}";\n' for n in range(40)}
    files["src/m40.ts"] = "export class Deep {}\n"
    files["src/use.ts"] = 'import { Deep } from "./m0";\nexport const d = new Deep();\n'
    root = project(files)
    service = service_for(root)
    index = service.index(str(root))
    selection = service.select(index, "src/use.ts", 1)
    # the chain is longer than the bound: the module named stands in, and the answer says so
    assert [item.path for item in selection.dependencies] == ["src/m0.ts"]
    assert selection.notes == (
        f"re-exports of `Deep` followed through {script.MAX_REEXPORT_DEPTH} modules, "
        f"{script.MAX_REEXPORT_DEPTH} deep; the rest not searched",
    )


def test_a_huge_barrel_is_searched_within_a_bound(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(script, "MAX_REEXPORT_VISITS", 20)
    files = {f"src/parts/p{n:03d}.ts": f"export class P{n:03d} {{}}\n" for n in range(60)}
    files["src/index.ts"] = "".join(f'export * from "./parts/p{n:03d}";\n' for n in range(60))
    files["src/use.ts"] = (
        'import { P005, P050 } from "./index";\nexport const ps = [new P005(), new P050()];\n'
    )
    root = project(files)
    service = service_for(root)
    index = service.index(str(root))
    selection = service.select(index, "src/use.ts", 1)
    assert sorted(item.path for item in selection.dependencies) == [
        "src/index.ts",
        "src/parts/p005.ts",
    ]
    assert selection.notes == (
        "re-exports of `P050` followed through 20 modules, 1 deep; the rest not searched",
    )


# --- Rust: `pub use` trees, globs, macros, scoped `use`, variants named like types ------------
PUB_USE = {
    "Cargo.toml": '[package]\nname = "geo-kit"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod shapes;\nmod raw;\nmod macros;\nmod draw;\nmod ring;\n"
    "#[macro_use]\nmod check;\nmod guard;\n"
    "mod loop_a;\nmod loop_b;\n\npub use shapes::{Circle, Square};\npub use shapes::paint::*;\n",
    "src/shapes/mod.rs": "pub mod circle;\npub mod paint;\npub mod square;\n\n"
    "pub use self::circle::Circle;\npub use square::Square;\n",
    "src/shapes/circle.rs": "pub struct Circle {\n    pub r: f64,\n}\n\nimpl Circle {\n"
    "    pub fn area(&self) -> f64 {\n        self.r\n    }\n}\n",
    "src/shapes/square.rs": "pub struct Square;\n\n"
    "/// Variants named like the types: no use of them.\npub enum Shape {\n"
    "    Circle(f64),\n    Square,\n}\n",
    "src/shapes/paint.rs": "pub struct Colour;\n",
    "src/raw.rs": "pub(crate) struct Circle;\n",
    "src/macros.rs": "#[macro_export]\nmacro_rules! circle {\n"
    "    () => {\n        $crate::Circle { r: 1.0 }\n    };\n}\n",
    "src/draw.rs": "use crate::{Circle, Colour};\nuse crate::shapes::square::Shape;\n\n"
    "// Square in a comment\npub fn draw(c: &Circle, _k: Colour) -> Shape {\n"
    "    fn inner() {\n        use crate::shapes::Square;\n        let _s = Square;\n    }\n"
    "    inner();\n    Shape::Circle(c.area())\n}\n",
    "src/loop_a.rs": "pub use crate::loop_b::Ring;\n",
    "src/loop_b.rs": "pub use crate::loop_a::Ring;\n",
    "src/ring.rs": "use crate::loop_a::Ring;\n\npub fn ring(_r: Ring) {}\n",
    # a crate-internal macro, visible where it is called without an import
    "src/check.rs": "macro_rules! ensure {\n    ($e:expr) => {\n        assert!($e)\n    };\n}\n",
    "src/guard.rs": "pub fn guard(ok: bool) {\n    ensure!(ok);\n}\n",
    "tests/it.rs": "use geo_kit::circle;\nuse geo_kit::Square;\n\n#[test]\nfn builds() {\n"
    "    let _c = circle!();\n    let _s = Square;\n}\n",
}


def test_rust_paths_are_followed_through_pub_use_to_their_declaring_files(
    project: Project,
) -> None:
    root = project(PUB_USE)
    assert direct(root) == {
        "src/lib.rs": [
            "src/check.rs",
            "src/draw.rs",
            "src/guard.rs",
            "src/loop_a.rs",
            "src/loop_b.rs",
            "src/macros.rs",
            "src/raw.rs",
            "src/ring.rs",
            "src/shapes/circle.rs",
            "src/shapes/mod.rs",
            "src/shapes/paint.rs",
            "src/shapes/square.rs",
        ],
        "src/shapes/mod.rs": [
            "src/shapes/circle.rs",
            "src/shapes/paint.rs",
            "src/shapes/square.rs",
        ],
        "src/shapes/circle.rs": [],
        "src/shapes/square.rs": [],
        "src/shapes/paint.rs": [],
        "src/raw.rs": [],
        # the expansion's `$crate::Circle`
        "src/macros.rs": ["src/shapes/circle.rs"],
        # Colour through the glob re-export, Square through a function's own `use`
        "src/draw.rs": ["src/shapes/circle.rs", "src/shapes/paint.rs", "src/shapes/square.rs"],
        # the cycle names each other's module
        "src/loop_a.rs": ["src/loop_b.rs"],
        "src/loop_b.rs": ["src/loop_a.rs"],
        "src/ring.rs": ["src/loop_a.rs"],
        "src/check.rs": [],
        "src/guard.rs": ["src/check.rs"],
        # the crate by its Cargo.toml name; an exported macro is an item of the crate root
        "tests/it.rs": ["src/macros.rs", "src/shapes/square.rs"],
    }
    # the public type, not the crate-internal one of the same name nearer the root
    assert context(root, "Circle") == []
    assert users(root, "Circle") == [
        "src/draw.rs",
        "src/lib.rs",
        "src/macros.rs",
        "src/shapes/mod.rs",
    ]
    # `Shape::Square` and `Shape::Circle` are variants: uses of Shape only
    assert users(root, "Shape") == ["src/draw.rs"]
    assert users(root, "Square") == [
        "src/draw.rs",
        "src/lib.rs",
        "src/shapes/mod.rs",
        "tests/it.rs",
    ]


def test_a_rust_path_from_the_extern_prelude_names_the_crate(project: Project) -> None:
    # `::geo_kit::…` (a leading `::`) names the crate whatever a module nearby is called
    root = project(
        {
            **PUB_USE,
            "tests/absolute.rs": "use ::geo_kit::{Circle as C};\nmod geo_kit {}\n\n"
            "fn f(_c: C) {\n    let _k = ::geo_kit::shapes::paint::Colour;\n}\n",
        }
    )
    assert direct(root)["tests/absolute.rs"] == [
        "src/shapes/circle.rs",
        "src/shapes/paint.rs",
    ]
    assert "tests/absolute.rs" in users(root, "Circle")
    assert users(root, "Colour") == [
        "src/draw.rs",
        "src/lib.rs",
        "src/shapes/mod.rs",
        "tests/absolute.rs",
    ]


def test_a_rust_macro_named_like_its_crate_leaves_the_crate_s_paths_alone(
    project: Project,
) -> None:
    root = project(
        {
            "Cargo.toml": '[package]\nname = "oops"\n',
            "src/lib.rs": "mod macros;\n\npub struct Error;\n\npub struct Chain;\n",
            "src/macros.rs": "#[macro_export]\nmacro_rules! oops {\n    () => {\n"
            "        $crate::Error\n    };\n}\n",
            # `use oops::oops` binds the macro: `oops::Chain` is still the crate's
            "tests/paths.rs": "use oops::oops;\n\n"
            "fn f(_c: oops::Chain) {\n    let _e = oops!();\n}\n",
            # one name, two namespaces: the derive macro from outside, the type from the crate
            "tests/namesakes.rs": "use derive_more::Error;\nuse oops::Error;\n\n"
            "#[derive(Debug)]\nstruct Mine;\n\nfn g() -> Error {\n    Error\n}\n",
        }
    )
    assert direct(root)["tests/paths.rs"] == ["src/lib.rs", "src/macros.rs"]
    assert direct(root)["tests/namesakes.rs"] == ["src/lib.rs"]
    assert users(root, "Chain") == ["tests/paths.rs"]
    assert users(root, "Error") == ["src/macros.rs", "tests/namesakes.rs"]


def test_a_rust_cfg_alternative_is_read_for_the_default_build(project: Project) -> None:
    root = project(
        {
            "Cargo.toml": '[package]\nname = "chainy"\n\n[features]\ndefault = ["std"]\n'
            "std = []\nextra = []\n",
            "src/lib.rs": "mod chain;\nmod use_it;\nmod extra;\n\n"
            '#[cfg(feature = "std")]\npub struct Chain;\n',
            # the default build re-exports the crate's Chain; a no-std build declares its own
            "src/chain.rs": '#[cfg(feature = "std")]\npub(crate) use crate::Chain;\n\n'
            '#[cfg(not(feature = "std"))]\npub(crate) struct Chain;\n',
            "src/use_it.rs": "use crate::chain::Chain;\n\npub fn f(_c: Chain) {}\n",
            # a feature the default build leaves off: its item stays the file's own
            "src/extra.rs": '#[cfg(feature = "extra")]\npub struct Extra;\n',
        }
    )
    assert direct(root)["src/use_it.rs"] == ["src/lib.rs"]
    assert users(root, "src/lib.rs") == ["src/chain.rs", "src/use_it.rs"]
    assert context(root, "Extra") == []


@pytest.mark.parametrize(
    ("predicate", "holds"),
    [
        ('any(feature = "std", not(no_core_error))', True),
        ('all(not(feature = "std"), no_core_error)', False),
        ("test", False),
        ("not(windows)", True),
        ('all(unix, target_os = "linux", target_pointer_width = "64")', True),
        ('feature = "extra"', False),
        # unreadable or too deep: taken as compiled, never an error
        ("any(", True),
        ("cfg_attr(x)", True),
        ("not(" * 40 + "test" + ")" * 40, True),
    ],
)
def test_rust_cfg_predicates_are_read_for_the_default_build(predicate: str, holds: bool) -> None:
    from context_server.core.languages.rust import cfg_holds

    assert cfg_holds(predicate, frozenset({"default", "std"})) is holds


def test_a_rust_re_export_cycle_terminates_with_a_note(project: Project) -> None:
    root = project(PUB_USE)
    service = service_for(root)
    index = service.index(str(root))
    selection = service.select(index, "src/ring.rs", 1)
    assert [item.path for item in selection.dependencies] == ["src/loop_a.rs"]
    assert len(selection.notes) == 1
    assert selection.notes[0].startswith("re-export cycle src/ring.rs::Ring -> src/loop_a.rs::Ring")


# --- Python: package re-exports, namespace packages, function-local imports -------------------
PACKAGES = {
    "lib/pyproject.toml": '[project]\nname = "acme-shapes"\n',
    # `acme` has no __init__.py: a namespace package
    "lib/src/acme/shapes/__init__.py": "from .circle import Circle\n"
    "from acme.shapes.square import *\n\n__all__ = ['Circle', 'Square']\n",
    "lib/src/acme/shapes/circle.py": "class Circle:\n    radius = 1\n",
    "lib/src/acme/shapes/square.py": "class Square:\n    pass\n\n\nclass Side:\n    pass\n",
    "lib/src/acme/paint.py": "from acme.shapes import Circle\n\n\nclass Brush(Circle):\n"
    '    """A Square in a docstring is no use."""\n',
    "app/main.py": "import acme.shapes\nfrom acme import paint\n\n\ndef run():\n"
    "    return acme.shapes.Circle(), paint.Brush()\n\n\ndef local():\n"
    "    from acme.shapes import Square\n\n    return Square()\n\n\n"
    "def other(Square):\n    return Square\n",
    "app/other.py": "class Square:\n    pass\n",
    "tests/test_shapes.py": "from acme.shapes import Circle, Square\n\n\ndef test_both():\n"
    "    assert Circle() and Square()\n",
    "loop/__init__.py": "",
    "loop/a.py": "from loop.b import Ring\n",
    "loop/b.py": "from loop.a import Ring\n",
    "loop/use.py": "from loop.a import Ring\n\nRINGS = [Ring]\n",
    # a module-level alias passes the class on like a re-export
    "crypt/__init__.py": "from crypt import base\n\nSigner = base.Signer\n",
    "crypt/base.py": "class Signer:\n    pass\n",
    "crypt/user.py": "from crypt import Signer\n\n\nclass Mine(Signer):\n    pass\n",
}


def test_python_names_are_followed_through_packages_to_their_declaring_modules(
    project: Project,
) -> None:
    root = project(PACKAGES)
    assert direct(root) == {
        "lib/src/acme/shapes/__init__.py": [
            "lib/src/acme/shapes/circle.py",
            "lib/src/acme/shapes/square.py",
        ],
        "lib/src/acme/shapes/circle.py": [],
        "lib/src/acme/shapes/square.py": [],
        # a base class imported through the package of a namespace package
        "lib/src/acme/paint.py": ["lib/src/acme/shapes/circle.py"],
        # `import acme.shapes` + `acme.shapes.Circle`; Square imported inside `local` only
        "app/main.py": [
            "lib/src/acme/paint.py",
            "lib/src/acme/shapes/circle.py",
            "lib/src/acme/shapes/square.py",
        ],
        "app/other.py": [],
        "tests/test_shapes.py": [
            "lib/src/acme/shapes/circle.py",
            "lib/src/acme/shapes/square.py",
        ],
        "loop/__init__.py": [],
        "loop/a.py": ["loop/b.py"],
        "loop/b.py": ["loop/a.py"],
        "loop/use.py": ["loop/a.py"],
        "crypt/__init__.py": ["crypt/base.py"],
        "crypt/base.py": [],
        "crypt/user.py": ["crypt/base.py"],
    }
    assert users(root, "Signer") == ["crypt/__init__.py", "crypt/user.py"]
    assert users(root, "Circle") == [
        "app/main.py",
        "lib/src/acme/paint.py",
        "lib/src/acme/shapes/__init__.py",
        "tests/test_shapes.py",
    ]
    # the star import passes the module on; `other`'s parameter named Square is its own
    assert users(root, "acme.shapes.square.Square") == ["app/main.py", "tests/test_shapes.py"]
    assert users(root, "Side") == []
    # the class named, not the same-named class of another folder
    assert context(root, "Brush") == ["lib/src/acme/shapes/circle.py"]


def test_a_function_local_import_counts_for_that_function_only(project: Project) -> None:
    root = project(PACKAGES)
    assert context(root, "app/main.py#run") == [
        "lib/src/acme/paint.py",
        "lib/src/acme/shapes/circle.py",
    ]
    assert context(root, "app/main.py#local") == ["lib/src/acme/shapes/square.py"]
    assert context(root, "app/main.py#other") == []


def test_a_python_re_export_cycle_terminates_with_a_note(project: Project) -> None:
    root = project(PACKAGES)
    service = service_for(root)
    index = service.index(str(root))
    selection = service.select(index, "loop/use.py", 1)
    assert [item.path for item in selection.dependencies] == ["loop/a.py"]
    assert selection.notes == (
        "re-export cycle loop/a.py:Ring -> loop/b.py:Ring -> loop/a.py:Ring (followed once)",
    )


# --- C#: preprocessor branches read as alternatives ----------------------------------------------
PREPROCESSED = {
    # a partial class wrapped in #if, with an #if splitting its body
    "src/Lib/Shapes/Circle.cs": "#if NET6_0\nnamespace Lib.Shapes\n{\n"
    "    public partial class Circle : Shape\n    {\n#else\nnamespace Lib.Shapes\n{\n"
    "    public partial class Circle : Shape, ILegacy\n    {\n#endif\n"
    "        public double R;\n#if DEBUG\n        public Square Twin() => new Square();\n"
    "    }\n#else\n        public Paint.Colour Tint;\n    }\n#endif\n}\n",
    "src/Lib/Shapes/Circle.Area.cs": "#if HAVE_AREA\nusing Lib.Units;\n\nnamespace Lib.Shapes\n"
    "{\n    public partial class Circle\n    {\n        public Unit Area() => default;\n"
    "    }\n}\n#endif\n",
    "src/Lib/Shapes/Shape.cs": "namespace Lib.Shapes\n{\n    public abstract class Shape { }\n"
    "    public interface ILegacy { }\n}\n",
    # `[Shapely]` is the attribute class ShapelyAttribute
    "src/Lib/Shapes/Square.cs": "namespace Lib.Shapes\n{\n    [Shapely]\n"
    "    public class Square : Shape { }\n}\n",
    "src/Lib/Shapes/ShapelyAttribute.cs": "namespace Lib.Shapes\n{\n"
    "    public class ShapelyAttribute : System.Attribute { }\n}\n",
    "src/Lib/Paint/Colour.cs": "namespace Lib.Paint\n{\n    public class Colour { }\n}\n",
    "src/Lib/Units/Unit.cs": "namespace Lib.Units\n{\n    public struct Unit { }\n}\n",
    "src/App/Draw.cs": "using Lib.Shapes;\n\nnamespace App\n{\n"
    "    public class Draw\n    {\n        private Circle circle;\n    }\n}\n",
    # nesting that does not balance: read as far as it goes, and said so
    "src/Lib/Broken.cs": "namespace Lib.Shapes\n{\n#endif\n    public class Broken : Shape\n"
    "    {\n#if A\n    }\n}\n",
}


def test_csharp_preprocessor_branches_are_all_read(project: Project) -> None:
    root = project(PREPROCESSED)
    assert direct(root) == {
        "src/Lib/Shapes/Circle.cs": [
            "src/Lib/Paint/Colour.cs",
            "src/Lib/Shapes/Circle.Area.cs",
            "src/Lib/Shapes/Shape.cs",
            "src/Lib/Shapes/Square.cs",
        ],
        "src/Lib/Shapes/Circle.Area.cs": ["src/Lib/Shapes/Circle.cs", "src/Lib/Units/Unit.cs"],
        "src/Lib/Shapes/Shape.cs": [],
        "src/Lib/Shapes/Square.cs": [
            "src/Lib/Shapes/Shape.cs",
            "src/Lib/Shapes/ShapelyAttribute.cs",
        ],
        "src/Lib/Shapes/ShapelyAttribute.cs": [],
        "src/Lib/Paint/Colour.cs": [],
        "src/Lib/Units/Unit.cs": [],
        "src/App/Draw.cs": ["src/Lib/Shapes/Circle.Area.cs", "src/Lib/Shapes/Circle.cs"],
        "src/Lib/Broken.cs": ["src/Lib/Shapes/Shape.cs"],
    }
    assert users(root, "src/Lib/Shapes/Circle.cs") == [
        "src/App/Draw.cs",
        "src/Lib/Shapes/Circle.Area.cs",
    ]
    assert users(root, "ILegacy") == ["src/Lib/Shapes/Circle.cs"]
    service = service_for(root)
    index = service.index(str(root))
    declared = {d.qualified_name for d in index.sources["src/Lib/Shapes/Circle.cs"].declarations}
    assert declared == {"Lib.Shapes.Circle"}
    selection = service.select(index, "Broken", 1)
    assert [item.path for item in selection.dependencies] == ["src/Lib/Shapes/Shape.cs"]
    assert selection.notes == (
        "#endif without #if at line 3 ignored",
        "1 #if never closed: each ends with the file",
    )


def test_a_csharp_partial_class_s_parts_see_each_other_s_nested_types(project: Project) -> None:
    root = project(
        {
            # a static partial class, each nested type in a part of its own (as Dapper does)
            "Lib/Mapper.cs": "namespace Lib\n{\n    public static partial class Mapper\n    {\n"
            "        public static Reader Open(Identity id) => new Reader(id);\n    }\n}\n",
            "Lib/Mapper.Identity.cs": "namespace Lib\n{\n    public static partial class Mapper\n"
            "    {\n        public class Identity { }\n    }\n}\n",
            "Lib/Mapper.Reader.cs": "namespace Lib\n{\n    public static partial class Mapper\n"
            "    {\n        public partial class Reader\n        {\n"
            "            internal Reader(Identity id) { }\n        }\n    }\n}\n",
            "Lib/Mapper.Reader.Async.cs": "namespace Lib\n{\n"
            "    public static partial class Mapper\n    {\n"
            "        public partial class Reader\n        {\n"
            "            public void ReadAsync() { }\n        }\n    }\n}\n",
            # outside the class the nested name needs its outer type
            "Lib/Identity.cs": "namespace Lib\n{\n    public class Identity { }\n}\n",
            "App/Use.cs": "using Lib;\n\nnamespace App\n{\n    public class Use\n    {\n"
            "        Mapper.Reader reader;\n        Identity plain;\n    }\n}\n",
            # a use of the outer class: the parts declaring its members, not those adding
            # nested types only
            "App/Call.cs": "namespace App\n{\n    public class Call\n    {\n"
            "        object r = Lib.Mapper.Open(null);\n    }\n}\n",
        }
    )
    assert direct(root) == {
        # the nested partial Reader: both its parts
        "Lib/Mapper.cs": [
            "Lib/Mapper.Identity.cs",
            "Lib/Mapper.Reader.Async.cs",
            "Lib/Mapper.Reader.cs",
        ],
        "Lib/Mapper.Identity.cs": [],
        "Lib/Mapper.Reader.cs": ["Lib/Mapper.Identity.cs", "Lib/Mapper.Reader.Async.cs"],
        "Lib/Mapper.Reader.Async.cs": ["Lib/Mapper.Reader.cs"],
        "Lib/Identity.cs": [],
        "App/Use.cs": ["Lib/Identity.cs", "Lib/Mapper.Reader.Async.cs", "Lib/Mapper.Reader.cs"],
        "App/Call.cs": ["Lib/Mapper.cs"],
    }
    assert users(root, "Lib/Mapper.cs") == ["App/Call.cs"]
    assert users(root, "Mapper.Identity") == ["Lib/Mapper.Reader.cs", "Lib/Mapper.cs"]
    assert users(root, "Lib/Identity.cs") == ["App/Use.cs"]
    # the part named after the nested type is its target, the `.Async` part a dependency
    service = service_for(root)
    index = service.index(str(root))
    selection = service.select(index, "Mapper.Reader", 1)
    assert selection.target.path == "Lib/Mapper.Reader.cs"
    assert sorted(item.path for item in selection.dependencies) == [
        "Lib/Mapper.Identity.cs",
        "Lib/Mapper.Reader.Async.cs",
    ]


def test_a_csharp_global_using_is_seen_by_every_file_of_its_project(project: Project) -> None:
    root = project(
        {
            "src/Log/GlobalUsings.cs": "global using Log.Events;\n"
            "global using static Log.Events.Level;\n",
            "src/Log/Events/Event.cs": "namespace Log.Events\n{\n    public class Event { }\n}\n",
            "src/Log/Events/Level.cs": "namespace Log.Events\n{\n"
            "    public enum Level { Info, Warn }\n}\n",
            "src/Log/Core/Sink.cs": "namespace Log.Core\n{\n"
            "    public interface Sink { void Emit(Event e); }\n}\n",
            # another project beside it: its files see none of it
            "test/Other/Probe.cs": "namespace Other\n{\n    public class Probe { Event e; }\n}\n",
        }
    )
    assert direct(root) == {
        # the declaring file's own imports are its dependencies
        "src/Log/GlobalUsings.cs": ["src/Log/Events/Level.cs"],
        "src/Log/Events/Event.cs": [],
        "src/Log/Events/Level.cs": [],
        # the names resolve; the global static using is no dependency by itself
        "src/Log/Core/Sink.cs": ["src/Log/Events/Event.cs"],
        "test/Other/Probe.cs": [],
    }
    assert users(root, "Event") == ["src/Log/Core/Sink.cs"]


# --- Go: build-tag twins, a type's methods, calls named like types -------------------------
BUILD_TAGS = {
    "go.mod": "module example.com/kit\n\ngo 1.22\n",
    "binding/binding.go": "//go:build !nomsgpack\n\npackage binding\n\n"
    "var MsgPack = msgpackBinding{}\n\ntype Binding interface{}\n\n"
    "func Default() Binding { return JSON }\n",
    "binding/binding_nomsgpack.go": "//go:build nomsgpack\n\npackage binding\n\n"
    "type Binding interface{}\n\nfunc Default() Binding { return JSON }\n",
    "binding/json.go": "package binding\n\ntype jsonBinding struct{}\n\nvar JSON = jsonBinding{}\n",
    "binding/msgpack.go": "//go:build !nomsgpack\n\npackage binding\n\n"
    "type msgpackBinding struct{}\n",
    "render/render.go": "package render\n\ntype Render interface{}\n",
    "ctx/context.go": 'package ctx\n\nimport (\n\t"example.com/kit/binding"\n'
    '\t"example.com/kit/render"\n)\n\ntype HandlerFunc func(*Context)\n\n'
    "type Context struct {\n\tengine *Engine\n}\n\n"
    "func (c *Context) Bind() binding.Binding { return binding.Default() }\n\n"
    "func (c *Context) JSON(code int) { c.Render(code, nil) }\n\n"
    "func (c *Context) Render(code int, r render.Render) {}\n",
    "ctx/engine.go": "package ctx\n\ntype Engine struct{}\n",
    "ctx/deprecated.go": 'package ctx\n\nimport "example.com/kit/render"\n\n'
    "func (c *Context) Legacy() render.Render { return nil }\n",
    "ctx/json.go": "package ctx\n\n// JSON: named like a method of Context.\ntype JSON struct{}\n",
    "app/main.go": 'package main\n\nimport "example.com/kit/ctx"\n\n'
    "func main() {\n\tc := &ctx.Context{}\n\tc.JSON(200)\n}\n",
    "sys/open_linux.go": "package sys\n\nfunc Open() {}\n",
    "sys/open_windows.go": "package sys\n\nfunc Open() {}\n",
    "sys/use.go": "package sys\n\nfunc Use() { Open() }\n",
    # a parameter named like the package's function is no use of it
    "sys/param.go": "package sys\n\nfunc Param(Open int) int { return Open + 1 }\n",
}


def test_go_build_tag_twins_are_alternatives_not_dependencies(project: Project) -> None:
    root = project(BUILD_TAGS)
    assert direct(root) == {
        "binding/binding.go": ["binding/json.go", "binding/msgpack.go"],
        "binding/binding_nomsgpack.go": ["binding/json.go"],
        "binding/json.go": [],
        "binding/msgpack.go": [],
        "render/render.go": [],
        "ctx/context.go": ["binding/binding.go", "ctx/engine.go", "render/render.go"],
        "ctx/engine.go": [],
        "ctx/deprecated.go": ["ctx/context.go", "render/render.go"],
        "ctx/json.go": [],
        # `c.JSON(200)` calls a method: no use of the JSON type
        "app/main.go": ["ctx/context.go"],
        "sys/open_linux.go": [],
        "sys/open_windows.go": [],
        "sys/use.go": ["sys/open_linux.go"],
        "sys/param.go": [],
    }
    assert users(root, "ctx.JSON") == []
    assert users(root, "Context") == ["app/main.go", "ctx/deprecated.go"]
    assert users(root, "binding/binding_nomsgpack.go") == []
    service = service_for(root)
    index = service.index(str(root))
    selection = service.select(index, "sys/use.go", 1)
    assert [(a.name, a.chosen, a.others, a.reason) for a in selection.alternatives] == [
        ("sys.Open", "sys/open_linux.go", ("sys/open_windows.go",), "build constraints")
    ]


def test_the_go_unix_constraint_holds_on_the_unix_systems_only() -> None:
    from context_server.core.languages.go import GOOSES, Condition

    unix = Condition("unix")
    assert sorted(goos for goos in GOOSES if unix.holds(goos, "amd64", frozenset())) == [
        *("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios"),
        *("linux", "netbsd", "openbsd", "solaris"),
    ]


def test_a_go_type_s_context_holds_its_methods(project: Project) -> None:
    root = project(BUILD_TAGS)
    # the struct's fields and every method's body, the methods in another file included
    assert context(root, "Context") == [
        "binding/binding.go",
        "ctx/deprecated.go",
        "ctx/engine.go",
        "render/render.go",
    ]
    assert context(root, "HandlerFunc") == []


def test_a_go_struct_literal_s_keys_are_field_names(project: Project) -> None:
    root = project(
        {
            "go.mod": "module example.com/kit\n",
            "kit/new.go": "package kit\n\nfunc New() int { return 1 }\n\nvar Limit = 3\n",
            "kit/pool.go": 'package kit\n\nimport "sync"\n\n'
            "type Opts struct{ Limit int }\n\n"
            "var pool = sync.Pool{New: func() any { return nil }}\n\n"
            "var opts = []Opts{{Limit: 2}}\n",
            # a map's keys and a struct's values are expressions: uses
            "kit/table.go": 'package kit\n\nvar table = map[int]string{Limit: "x"}\n',
            "kit/value.go": "package kit\n\nvar value = Opts{Limit: New()}\n",
        }
    )
    assert direct(root) == {
        "kit/new.go": [],
        "kit/pool.go": [],
        "kit/table.go": ["kit/new.go"],
        "kit/value.go": ["kit/new.go", "kit/pool.go"],
    }
    assert users(root, "kit/new.go") == ["kit/table.go", "kit/value.go"]


# --- Bad input: self-imports terminate with an answer -------------------------------------------
def test_files_importing_themselves_terminate(project: Project) -> None:
    root = project(
        {
            "Cargo.toml": '[package]\nname = "selfish"\n',
            "src/lib.rs": "mod a;\npub use crate::a::*;\n",
            "src/a.rs": "pub use crate::a::*;\npub use self::Thing as Thing;\n"
            "pub struct A(Thing);\n",
            "web/a.ts": 'export * from "./a";\nexport { B as B } from "./a";\n'
            'import { A, B } from "./a";\nexport const x = [A, B];\n',
            "web/b.ts": 'import { B } from "./a";\nexport const y = B;\n',
            "py/pkg/__init__.py": "from pkg import X\nfrom pkg.mod import *\n",
            "py/pkg/mod.py": "from pkg.mod import Y\nfrom pkg import X\n\nZ = Y\n",
        }
    )
    service = service_for(root)
    index = service.index(str(root))
    assert direct(root) == {
        "src/lib.rs": ["src/a.rs"],
        "src/a.rs": [],
        "web/a.ts": [],
        "web/b.ts": ["web/a.ts"],
        "py/pkg/__init__.py": ["py/pkg/mod.py"],
        "py/pkg/mod.py": ["py/pkg/__init__.py"],
    }
    for path in index.sources:
        # every file's own answer comes back, cycles noted where a chain was cut
        selection = service.select(index, path, 3)
        assert selection.target.path == path
