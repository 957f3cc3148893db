"""Names every file of a JVM language sees without importing them (its implicit imports).

Such a name in a file means the platform's type unless the file imports a project type of
that name, declares it itself or shares the package of a project type of that name: a project
class called ``IllegalStateException`` elsewhere is not what an unqualified
``throw new IllegalStateException()`` means.

``JAVA_LANG`` is generated from a JDK by ``scripts/java_lang_names.py`` (public top-level types
of ``java.lang``, JDK 25). The Kotlin and Scala lists are written from their language
references: the public types and type aliases of Kotlin's default imports (``kotlin.*``,
``kotlin.annotation.*``, ``kotlin.collections.*``, ``kotlin.comparisons.*``, ``kotlin.io.*``,
``kotlin.ranges.*``, ``kotlin.sequences.*``, ``kotlin.text.*``, and on the JVM ``kotlin.jvm.*``
and ``java.lang.*``) and of Scala's ``scala.*`` and ``Predef`` (plus ``java.lang.*``).
"""

from __future__ import annotations


def _words(text: str) -> list[str]:
    """The whitespace-separated names of ``text``."""
    return text.split()


JAVA_LANG = frozenset(
    _words(
        """
    AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException
    ArrayStoreException AssertionError AutoCloseable Boolean BootstrapMethodError Byte
    CharSequence Character Class ClassCastException ClassCircularityError
    ClassFormatError ClassLoader ClassNotFoundException ClassValue
    CloneNotSupportedException Cloneable Comparable Deprecated Double Enum
    EnumConstantNotPresentException Error Exception ExceptionInInitializerError Float
    FunctionalInterface IO IllegalAccessError IllegalAccessException
    IllegalArgumentException IllegalCallerException IllegalMonitorStateException
    IllegalStateException IllegalThreadStateException IncompatibleClassChangeError
    IndexOutOfBoundsException InheritableThreadLocal InstantiationError
    InstantiationException Integer InternalError InterruptedException Iterable
    LayerInstantiationException LinkageError Long MatchException Math Module ModuleLayer
    NegativeArraySizeException NoClassDefFoundError NoSuchFieldError
    NoSuchFieldException NoSuchMethodError NoSuchMethodException NullPointerException
    Number NumberFormatException Object OutOfMemoryError Override Package Process
    ProcessBuilder ProcessHandle Readable Record ReflectiveOperationException Runnable
    Runtime RuntimeException RuntimePermission SafeVarargs ScopedValue SecurityException
    SecurityManager Short StableValue StackOverflowError StackTraceElement StackWalker
    StrictMath String StringBuffer StringBuilder StringIndexOutOfBoundsException
    SuppressWarnings System Thread ThreadDeath ThreadGroup ThreadLocal Throwable
    TypeNotPresentException UnknownError UnsatisfiedLinkError
    UnsupportedClassVersionError UnsupportedOperationException VerifyError
    VirtualMachineError Void WrongThreadException
        """
    )
)

KOTLIN_DEFAULTS = frozenset(
    _words(
        """
    Annotation Any Array ArrayIndexOutOfBoundsException AutoCloseable Boolean BooleanArray
    Byte ByteArray Char CharArray CharSequence ClassCastException Comparable Comparator
    ConcurrentModificationException DeepRecursiveFunction DeepRecursiveScope Deprecated
    DeprecatedSinceKotlin DeprecationLevel Double DoubleArray DslMarker Enum Error Exception
    ExperimentalStdlibApi ExperimentalSubclassOptIn ExperimentalUnsignedTypes
    ExtensionFunctionType Float FloatArray Function IllegalArgumentException
    IllegalStateException IndexOutOfBoundsException Int IntArray KotlinNullPointerException
    KotlinVersion Lazy LazyThreadSafetyMode Long LongArray NoSuchElementException
    NoWhenBranchMatchedException NotImplementedError Nothing NullPointerException Number
    NumberFormatException OptIn OverloadResolutionByLambdaReturnType Pair ParameterName
    PublishedApi ReplaceWith RequiresOptIn Result RuntimeException Short ShortArray
    SinceKotlin String SubclassOptInRequired Suppress Throwable Triple TypeCastException
    UByte UByteArray UInt UIntArray ULong ULongArray UShort UShortArray
    UninitializedPropertyAccessException Unit UnsafeVariance UnsupportedOperationException
    AnnotationRetention AnnotationTarget MustBeDocumented Repeatable Retention Target
    AbstractCollection AbstractIterator AbstractList AbstractMap AbstractMutableCollection
    AbstractMutableList AbstractMutableMap AbstractMutableSet AbstractSet ArrayDeque
    ArrayList BooleanIterator ByteIterator CharIterator Collection DoubleIterator
    FloatIterator Grouping HashMap HashSet IndexedValue IntIterator Iterable Iterator
    LinkedHashMap LinkedHashSet List ListIterator LongIterator Map MutableCollection
    MutableIterable MutableIterator MutableList MutableListIterator MutableMap MutableSet
    RandomAccess Set ShortIterator
    AccessDeniedException FileAlreadyExistsException FileSystemException FileTreeWalk
    FileWalkDirection NoSuchFileException OnErrorAction Serializable
    CharProgression CharRange ClosedFloatingPointRange ClosedRange IntProgression IntRange
    LongProgression LongRange OpenEndRange UIntProgression UIntRange ULongProgression
    ULongRange
    Sequence SequenceScope
    Appendable CharCategory CharDirectionality CharacterCodingException Charsets HexFormat
    MatchGroup MatchGroupCollection MatchNamedGroupCollection MatchResult Regex RegexOption
    StringBuilder Typography
    JvmDefault JvmDefaultWithCompatibility JvmDefaultWithoutCompatibility JvmField
    JvmInline JvmMultifileClass JvmName JvmOverloads JvmRecord JvmSerializableLambda
    JvmStatic JvmSuppressWildcards JvmSynthetic JvmWildcard KotlinReflectionNotSupportedError
    PurelyImplements Strictfp Synchronized Throws Transient Volatile
        """
    )
)

SCALA_DEFAULTS = frozenset(
    _words(
        """
    Any AnyRef AnyVal App Array ArithmeticException ArrayIndexOutOfBoundsException BigDecimal
    BigInt Boolean BufferedIterator Byte CanEqual Char ClassCastException Cloneable Console
    Conversion DelayedInit Double Dynamic Either EmptyTuple Enumeration Equals Error
    Exception Float Fractional Function Function0 Function1 Function2 Function3 Function4
    Function5 Function6 Function7 Function8 Function9 Function10 Function11 Function12
    Function13 Function14 Function15 Function16 Function17 Function18 Function19
    Function20 Function21 Function22 IArray IllegalArgumentException IndexOutOfBoundsException
    IndexedSeq Int Integral InterruptedException Iterable IterableOnce Iterator LazyList Left
    List Long MatchError Matchable Nil NoSuchElementException None NonEmptyTuple Nothing
    NotImplementedError Null NullPointerException NumberFormatException Numeric Option
    Ordered Ordering PartialFunction Predef Product Product1 Product2 Product3 Product4
    Product5 Product6 Product7 Product8 Product9 Product10 Product11 Product12 Product13
    Product14 Product15 Product16 Product17 Product18 Product19 Product20 Product21
    Product22 Proxy Range Right RuntimeException Selectable Seq SerialVersionUID
    Serializable Short Some Specializable Stream StringBuilder StringContext
    StringIndexOutOfBoundsException Symbol Throwable Tuple Tuple1 Tuple2 Tuple3 Tuple4 Tuple5
    Tuple6 Tuple7 Tuple8 Tuple9 Tuple10 Tuple11 Tuple12 Tuple13 Tuple14 Tuple15 Tuple16
    Tuple17 Tuple18 Tuple19 Tuple20 Tuple21 Tuple22 UninitializedError
    UninitializedFieldError Unit UnsupportedOperationException ValueOf Vector
    ArrowAssoc Class DummyImplicit Ensuring Manifest Map OptManifest Set String StringFormat
        """
    )
)
