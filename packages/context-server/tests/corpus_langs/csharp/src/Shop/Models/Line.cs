using Shop.Core;

namespace Shop.Models;

// A line of an invoice: Shop.Billing.Invoice is named here in a comment only.
public record Line(string Sku, Money Price);
