"""The names the engine package exports: type checkers read them here, and ``__init__.py``
loads each from its module on first use (``name as name``: an explicit re-export)."""

from .approximate import approximate_check as approximate_check
from .check import check_uniqueness as check_uniqueness
from .database import DatabaseRegistry as DatabaseRegistry
from .files import open_file as open_file
from .formats import FORMAT_CHOICES as FORMAT_CHOICES
from .formats import Format as Format
from .keys import find_keys as find_keys
from .limits import DEFAULT_MAX_LINE_BYTES as DEFAULT_MAX_LINE_BYTES
from .limits import MAX_LINE_BYTES_LIMIT as MAX_LINE_BYTES_LIMIT
from .metadata import read_metadata as read_metadata
from .model import MAX_KEY_COLUMNS as MAX_KEY_COLUMNS
from .model import Approximation as Approximation
from .model import CheckResult as CheckResult
from .model import ColumnEstimate as ColumnEstimate
from .model import ColumnProfile as ColumnProfile
from .model import DeclaredKey as DeclaredKey
from .model import DuplicateGroup as DuplicateGroup
from .model import Key as Key
from .model import KeySearch as KeySearch
from .model import Nulls as Nulls
from .model import Profile as Profile
from .model import Statistics as Statistics
from .model import TableMetadata as TableMetadata
from .profile import profile_columns as profile_columns
from .table import Table as Table
