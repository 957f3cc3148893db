package com.shop.sc.render

import com.shop.sc._
import com.shop.util.{Money => Cash, Strings}

/* Tax is only named in this comment */
class Renderer {
  def draw(s: Shape): String = s"Tax ${Strings.join()}"
  val price: Cash = null
  val grade = 'B'
  val help = """Billing and Tax
are explained elsewhere"""
}
