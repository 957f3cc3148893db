package org.acme.aop.target;

public class PoolTargetSource {}
