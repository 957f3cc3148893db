using System.Collections.Generic;
using System.Linq;

namespace Shop.Core
{
    public static class MoneyMath
    {
        public static Money Sum(IEnumerable<Money> amounts) =>
            new Money(amounts.Sum(a => a.Cents));
    }
}
