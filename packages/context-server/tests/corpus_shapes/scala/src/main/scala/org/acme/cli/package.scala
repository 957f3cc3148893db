package org.acme

package object cli {
  type Args = Seq[String]
  def helper(args: Args): Int = args.size
}
