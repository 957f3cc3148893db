package com.shop.model;

public class Customer {
    private Address address;
}

class Address {
    private String street;
}
