using System.Linq;
using Shop.Core;
using static Shop.Core.MoneyMath;

namespace Shop.Billing;

public partial class Invoice
{
    public Money Total() => Sum(Lines.Select(line => line.Price));
}
