package org.acme.aop;

import org.acme.aop.target.PoolTargetSource;

public class ProxyFactory {
    PoolTargetSource source;
}
