package org.acme.app

import org.acme.cli.helper
import org.acme.cli.OptionParser

object Main extends App {
  val parser = new OptionParser
  println(helper(List("-v")))
  val none: Option[Int] = None
}
