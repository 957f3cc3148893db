namespace Shop.Core;

public readonly record struct Money(long Cents);
