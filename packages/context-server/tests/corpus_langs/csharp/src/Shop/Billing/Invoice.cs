using System.Collections.Generic;
using Shop.Models;

namespace Shop.Billing;

public partial class Invoice
{
    public List<Line> Lines { get; } = new();
}
