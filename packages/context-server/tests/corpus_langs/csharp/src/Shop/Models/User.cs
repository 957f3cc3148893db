namespace Shop.Models;

/// <summary>A customer account.</summary>
public class User
{
    public string Name { get; init; } = "";
}
