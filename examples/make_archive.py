#!/usr/bin/env python3
"""Generate the bundled example Claude Code archive under examples/archive/.

Deterministic: fixed uuids, fixed timestamps, no randomness, stdlib only.
Running it twice yields byte-identical output.

    python3 examples/make_archive.py            # writes examples/archive/projects/...

The archive imitates the *shape* of real Claude Code 2.1.x transcripts
(field names, key order, streaming split, tool_use/tool_result linking,
resume copies, compaction, sub-agents).  All content is fictional.
See examples/archive/README.md for the expected model.
"""

import base64
import hashlib
import json
import os
import shutil
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "archive", "projects")

# --------------------------------------------------------------------------
# ids


def U(tag, n):
    """Readable v4 uuid: <tag>-0000-4000-8000-<n:012d>."""
    return "%s-0000-4000-8000-%012d" % (tag, n)


def toolu(tag, n):
    return "toolu_01%s%014d" % (tag, n)


def msgid(tag, n):
    return "msg_01%s%014d" % (tag, n)


def reqid(tag, n):
    return "req_011C%s%012d" % (tag, n)


S1 = "5e5510a1-0000-4000-8000-0000000000a1"  # weather-cli, first session
S2 = "5e5510a2-0000-4000-8000-0000000000a2"  # weather-cli, resumed copy
SB = "5e5510b1-0000-4000-8000-0000000000b1"  # notes

T_TRUNK = "a1000000"  # S1 nodes before the first fork
T_F1B1 = "a1f1b100"  # fork 1, branch 1 (abandoned)
T_F1B2 = "a1f1b200"  # fork 1, branch 2 (active)
T_F2B1 = "a1f2b100"  # fork 2 (nested in F1B2), branch 1 (abandoned)
T_F2B2 = "a1f2b200"  # fork 2, branch 2 (active, continued by S2)
T_AGENT = "a1ae0000"  # sub-agent transcript nodes
T_S2 = "a2000000"  # S2's own nodes
T_B = "b0000000"  # project B nodes

AGENT_ID = "a3f9c2e1b7d40a6f5"

CWD_A = "/home/alice/src/weather-cli"
CWD_B = "/home/alice/notes"
MODEL = "claude-sonnet-4-5-20250929"
HAIKU = "claude-haiku-4-5-20251001"

# The pasted screenshot: examples/screenshot.html in headless Chromium at
# 760×196, quantised to 16 colours (pngquant, optipng).
PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAvgAAADEBAMAAAAYK0gvAAAAMFBMVEUzNTweHyROU1PV2N5ja22WmJ97gIN5wnx4qfCqrbS/wsn6i1dc"
    "f7IoKi7funirfl21Or9EAAAZiUlEQVR42uyX30sbaxrHJ+MkOSmV5plOopEMZIxWc9qyMROFBgrJseIP9kCsRlA4kGi1RDhgRXauDljp"
    "RS5SSDQR4lXVGDCwN3srdE8PvfDCA4n12FIo+wecm2Vv9+Y87zuTn2rt7rLo2Z1HzEzezLzvO5/3+36fZxhGDz300EMPPfT4v4whZr3h"
    "uyn67/Wz3vSVC1/P5/3DwT/o8e7BX+ixS+m8SvizlVN2fm+WMVbgn0fP4qq7ry7wpmb4bPBasv/bwcHB3/F4SzuyiqK4rhB+NTyz7KjL"
    "9Dn4ntrpZH37L2fhX9ONfhehE8nfff2aHs0If+lKZsJNZ6jtxPeZ7pyLRWBsyhjtzkWZzeno18WUKRflItMutupEC9xMgYtMGbfCTGqK"
    "zbMpLhdmhrKusWI4g3eNZhnLfIphRvdd19V2/onw/1p37EH4y1cDPzjqQvimdZbJcClTcHQz/NgY7WI3mSwzhfTinZvcDhJOVeV+I8hy"
    "O0zE5WLDQ1yWC3uC88ysCVeMyXZm2IwpbEHmXIa5tvAPSJDj64NfyVEhUbqauRijCB+dHFFNWnAZwk+I5w8xGWYUm3boJzUYdvoxboCU"
    "JYiXsimSlz2mUWN0iqaBdbwpwywQ58cLaNq4pvBbK/Bfa0eifOVKpsJOFwn8G8iyWCxY2DBL4Hdv7aEVeZDeK/o5RVdpFr2EC3MzSJXs"
    "BIvL4un2uLaKRddQMU8T7oKlWNyxuL4ukgW4/rbz6+urtR3LNxXlmxAVUf5k2BSdctUrP4XnVDOkDEWqcVX5HsYYN8XJrsBUkaHw541B"
    "tR66xsqvJVzteHUJF+VL4JvCLJthOtHzC1kkN8lEmBy6fYqZR+cvmFLVhGtxscw8Ut1kcH3Q8rPMqItjU2zeRJXPrTNBAh+P19bzb51T"
    "al7NTLhsJFqtdh6z6+pLlicyz5DaZUatdtBtUtVK01gkVLHamWTYPFNguK0sE5/KsFthhI9VTpi+CVzjaqd0S33JatVetlqZKyzz62M0"
    "yC40l+kNDBdqp9p6tDY+2e/hlb5UmaU290/XY9ZcPBtshm+qh/9NLVUHGT3+W3G+8vXQQw899NDj9xGgx5WFDl+Hr8PXQ4evw9dDh6/D"
    "10OHr8PXQ4f/vwdfUJ7h53DjBWrjfx7ON+c0tidC+PkC/x0X3OY2XNShdcN3+aiOcQCbPH72B0HebmoRte6yn+vPTu8aq29Jg9XbfBnf"
    "VztfpPOIXap8gXDuqms4Ub4Hvh5+z/kcVpsf7Xnj96ML4EM7gf/2AvgER8uF8O2vzmnsiDWStI1XPqpLVtCmuN24RCCmzofPy4Hvag9G"
    "7xqqn0asCl8MVMbn003wbaFL4fNNIheXS0/h+HL4Z8C2h/4V+Binu3vnw79Y+bbxL4DvaIb/MTOnDnnSDL8SkaYuj/1de03Kb4pSBb4c"
    "6jir8MXLbYd/qhgo/GEFexlWDOLwn8p2CdoMpPGOsgTm4RXoUdCEehQJVpQf6jr5SoJ7iZ/B+dPhc/EwKQH0linum4k3+MNPcJhIvHEe"
    "JSToRZtpf5tQ12GEfEESh0mAuOUO1SU+RkvZEwhBPDBulWW57B7rL8PiAwncFrlhHWyy7ANPIAb2zEa6f2ArJGzsGzpk2U/7IbfaN/bA"
    "MR2QKPxfdlVhD5ZtaZh5EKIatmuNFD52h/2FIbuxAzzuDxu5lZDxwhw25GEarD5hW/DBRACge3cd8rgWdpnYjpVuJ7E/3REjo/Iy2g6Z"
    "sBE3zeJEARzyZ22Hv296RkUuoue3LR1LbVHumRmeKhKB34k7oGfJHCLK55dPlkBx4RoNhmrCTpaC4Ey2hpxrx9iahBFU9f0kcwRdzKGq"
    "/OS95/yL4zU8KdH7nGulNxR+GT0/otlOHg2V93N5cfYkryoflWrf4bwwuH5iaFa+2M/6wbbvig3MLWzb73vGG5R/en8s5PCfein8nGuG"
    "/jAD9j5hB+dINLyoNaq2g7cUmChsfDtneBd2h2x+I5X5sVfcAHdwLOQ2IOvtQYl6/iNmBlcDh0PPL3lv0GFFv7cjRkalnk8mnGP3YC6M"
    "nC7zfHFJtR2Eb8bHNJdhqUtY6pFUL3pvMEuYEhC+/Rms4B9egxu4Nyl1grgGsEZwvsRNQAjxL+Er688fuOfQi98+GFTb4VfReo6g/U2d"
    "47RrCXcurjZu2mMRRBGn2596vuQYvx2CTXBLZ21HeIgA7A8BfC1sHzXkRtuxjTvSUCBX8g/hNu1gGgQv9Q6i/AK0hBrgk22Tw07I/nCk"
    "VS/nZXkAE4EdVd0RE/K+SsJtkdxlzEgk4foL2qARMj6ZGFG+hDsFd9pcGbv/PHzrsLJchY+IRXSY5UdtUhuFzymKZC7zFH5bCJ7CMrwn"
    "zyK+vZdYBSem18MjAz2OaDmgnVvrdSYSifLNBNoNhW9dbccGav58Yo14VQ2+oOXBeMd2Br0jAKPyA83zbekWWe7Hp6iUKT401wH6jEhx"
    "kErY21Lq47dws9fDFzbkND53ltJAH6KccwjfGnhSpvD92vVV+BNTEl7vGF9EfLZxq0/1/O4Y7Moyqt5tEGRcEBHhG3dlqSOEfn6Kyle9"
    "Dnto+Rgjo6rKL5Mlb5EWyQw/D79tWWyADz3ip/KjNoMKX5He18NfqMAHHAAJ4ik/skaxEqlDLy7EH4+OaI5NSh80+OKqKnZsFZlWdY/U"
    "qh3Vw9yWV14CRBgwTNfgk6HclQ2KtwJzvw5+WoXf8lhohD8YtdXgV2o/YjvATaTpmp2Bzy/6qvAdGnz0/DwQaYhe3Db+nKr8femdZE9v"
    "4jRQ+QMTBnVQx1iMjErh44S/FP57A18H36Bazx17zEzgoyP1SBXbEVTb6ak5MFU7+jyFb9CKm8MPb0nBKa5Cb1X5dDWc59kOONSK493C"
    "Qh9OnhDNVeHfxpmLFfhQLpM1r9jODHl6Cn+QYHXUwY+DA70DBqjtVN4JaMIla3Gu7ZCmHNwmtrNdVb4XxsrTtA4iGbYlRuDjxW6J93m1"
    "Ov9jWh1UKMamcVQ47qMT/lLbaQudLoN1WYXftsSH2pasP7z/hAmXNK6ITyUzSbi4JNYzCRfhiT8KqvKda3yIlP180rkmJg33ICkeSjBS"
    "psq3vvhU83yacJ0/qvc/0ZTv8LnT/EDrgvCKf0BIYJ1vS9v9pUmU+FnPpwm3qnzpRh9dCVAhwpjBnaYJl7wRbEke6lsdjwdDwrcWFKef"
    "Jlza6FjvdBGeYvjEV024dcp/F3NHT2Mw+BBotUOqx4I4IUExrcG3Dmgrvhsjo6q2Q0zuyxKuVVlGyMMroqKQMlOR8D8mUCBYYpoVVH7P"
    "Cg6lPBPVUvN7AK1iFjDPiofo7AQ+OaHHF6j7m4kj/Eflt2OpicqndWe14B/BktN6+JIniSAu51Wi2yhzTyADi3sotkEsNRE+jAXWq7bT"
    "UOeTUvNUgy8UM33A7/o1hWOpWYykaakJE34sNXOUMykihd093J+L/fh2oZWamFPtsvxA3MAatFpq1pRv/zO/sR+Cjt/YO6PWtrEsjtf1"
    "tMN06EZHkQ0JKKnsdpYk1HEjxxBDYJVMd0mgYTVpFpKncbwtxLAPOyzM15hsm0AChSROBC0Upsu+5aFfIWpmFjaz7bSmr5HrMm9hnL3n"
    "SpYdW7Lk0iZT657S1nGvJPen43PvPVf/c2mgW9cx7Aw8IsOeXBb2yYiXdMy5kAk/l6VXxT4aPzAdauY0iMvyDe/cjgji8+e6/dM/Qjp9"
    "E+1TXbRfwzeOMyrRHvY7Wt3xzXmAs86z6N5NwpL3vOk9Jtb4b2uUf6/XT33rGv2v8XNffYfPcebwvU1cr0aJlVPKatbAflrP+JsA5iDj"
    "W9Vkz3ennlLWgRnL5zP4zBh8Bp8Zg/8Rw+8y3vCGUeo3DOOXEvQVPY/kSMvDhGG8mnnZbwiG8caxVd8rEIqkVXnmlVDsM0qh1iflKyWp"
    "75AzEodQKQcGvmgYr/mKcdx/bBwrhpR45Q3/2Cj9migdl2de9xH4FcMd/rBRKs8UEb5x2PqkL8ht6jt8UewviUYoMPD7Df0Z8CWA5wRi"
    "omxIPgb+FUVMlJ/DTClhCCVwPqT/VaXrJTkhVEoE/sv+UutzJsoi8fxKmTN+LgUn7PS/xi99Cb8CxF1Lhp9jKwpShZnKcQv4L43hV9hs"
    "pvJDsa/Ie5w4UcSrk49RqRwGB37fyzr4vFH0B1+k0Tzx2j3sCEXj2ISf+IV4vugB/2eD9DfkN/zOKAcIfrEOPvj7n6Pnl46VmeGie4fL"
    "l0qk50T4w6+J53vBh2ES8w0S7kkYDGjYQaw+PR9j/hUJw47bmOitQeFXrpSI5/Oe8ayPtCK3iw9AyK/rcEPP2odvxnwJ3OGLxhsT/oxU"
    "IZ7v1eHGED4Z7QQLPlhDzXY9H4eareCDoRgKHWpKMz6GmomScdh3KBgBg99lFHGS1a7n4ySrNXypItFuWXrhY5LVRVr0HZKDggXfihIf"
    "6joB6D5ZbofBZ8bgM/jMGHwGnxmD/5uFz8nJdzqP8DTU5hG99RO5uWDDz4+Z9Li24HftvjVfDHWVgd992nouJS6MgriU+Vsj/DlYCTT8"
    "aHpqk77Yaw9+7EiiL66KT2Do7bAH/L/sALd6c7QBPjcScM/vxQeiUYyHni8UtnyfoL9se/5T79bUwxcs+P99MLie36DijpVZhytGCvch"
    "nqdqxNCci/azI+DvK5CmYjyEH7+V8x3BP5esmK9z//IJf96Ef2sN4tdGVuij17O315sbT1+/CvE/DyrRrQub+YZOoqPgEwA7VIyH8OfB"
    "QczrbEc1d+e/9wefM/ULvUvLEBc2l1C/Q67ooHbO088VUXuzXCq+92A/1Knw4wgfxXgY81dq8poWAXx3d/d7OG/F/DbgXzLDR6+swqCw"
    "OQViCt+3lQc1C2u3TE2WAlr31dQgdHTYQTEe5xc+YMlxO+bj3fAXdjhLTN97f8SEj7rAOSf43M0xG37Pnbk7nd3hoo7MCjs+OjdRxOx/"
    "/xP7DX8druX4JIQv6BT+geICH0VlCB/DTnThYLVzh5qpgU0qxgMyuvDf4cZiR7bnw9CEx1ATYg9j4sNYzIJ/sEzhT4NL2Plyb43CJx3u"
    "Y360Z6Rj4dNJForxYDBDhprbPg8f2v137QfPSRYU5DFelmULPp+i8DVw8fxpMvJF+CL5bGIqeoPldt6fWTdKGGe5nTMzQWHwmTH4DD4z"
    "Bp/BZ8bgBwC+NYN/h6oa0Ycec+JIfcKi5QUci5B2NHyzYOTtduD/WFBhVrYqsw5eXAa+sNM8w71QeNAIP+9xgUjQ4Ec2/TpmDX5ehfOx"
    "wSz94a64CZO3v2h2/7Ura+YFlu23NAbfwfPvpdFTv6J1OLnZHT268yjb4lhamsyqtzt4UQWHorBYfclsEVEjG92zS9s0n5DPay7nHMio"
    "FP5n5G8sHCqmFlIBCTsk5s9fnqBlwXq+G1Sj6U+SXvDnrePHQpxT2lFMWUXkIupCqPtuOk+LOufuzzp3EXz6HIUvaudXaOFQMXMrFpCw"
    "s2quNWFBvLAkjEdvwLYX/Jpf8o453zV9ln57InMb0H0lGQeI6zCpdyvOp1yGatFGrFEWlsR0YDpcAn9yVQIsBRnXuRHypuYB3y5Y6Qb/"
    "gpw34ZOeufvceJje3rzbIjF9m8CPyLIcwsKhYioA8P9Thc9PpduBX1eAm3Ne7bi8b4adrbQJn0/6gY/fACwcKo4EAL4ddjCK22HHG379"
    "Qwc7zs3MQrwRdVKi8PEoV/h22HkMZuHQQMCPbuHqHoG/yGu1DrclfH7wn1K1vzUpL15r7kavfjFqjR8jjyl8HPxMu8Hn05dVLEIq7oSm"
    "aOHQYHi+bK3w5TJZWoeTDjVbwu+V5eUT/SFfeNg8yRrMZC344g6FPw8tPJ8MNZdBnE2REe8qLRwaCPinZpw/mnrwcjunYHwWmJ0VfGYM"
    "PoPP4DNj8Bl8ZmcPn2bgTyjj4l7CkA+lRpzMBAB+t7wTaoBfXyV+wAU+V1Wm+FIjCoUxCaasnd58qhHrN4GsS6F2FPz9RUuNaMNv6alV"
    "+/zXoTJ94UuNKEzcTMIfc43wW6kRxSDA71b4EVy7E8ahNxsOXcridlzcQkaJqBAPxWVTPdh0+JDeX7Y934c4AtPz8Sp8P2pE6vm4N+JA"
    "RhFw97KO9HwlOkLX7lIETvicRmM+//XFJN0Cj8b8W2sOni/9pFgx35caUUjW4PtSI+JaO+6NiBsmdq7ny/IyXbubJ7/C09lqh6uRu7FN"
    "N31C9WCTkTBfe+0tiNvHPfKq8Jf8qBHR83FvRLphYufG/CWdrt3F9RSEkRHKEvNyGub4cdPzG55lomrEn94eKW3Afza1UYPvS42I8HFv"
    "RLphYufG/IhK1+56/zoO4TtJ6vmRbV2DOO4CFjfVgycPPXfu8hEIT+y74SPs4PpAFb4vNSK6P/4Tzf93rOcr3Aiu3UF0RYXw5YfU83uy"
    "kIaDaYVu9IfqwZOuL4pQD99Ph4tLjXaH60eNSMNO1nrmiu9Yz4cVunYnyhIZaobpzt6RB9E0GXPo1iTroDnoD1WHmvQHLzVidGJqBM7n"
    "JnQTvh81IsQVwL0RccNEvwsxH6HnE4/EtTtYBzEciiYRvrigrQLuEHlPlrOoHmzucI/q5lWek6yoPKZATpYlE74fNSJECyrdGxE3TKQb"
    "YHdqekG0orKJslElqL/nS1vnY2rEOu+spnROPDr7AU1QGPyqVfep785IwOyU4TNj8Bl8Zgw+g8/sNOAv1Q076WjTV5EhTzUi2smVSbcD"
    "GtSIEbXj4e/bz8TebYR/2+VQlEwBZ805XdWInxUUu1Vdzc4DxRV+A+4gwE85PJAcbTnPmvuyEIKeR9Ytc1MjXpsk8K1WdZ4/rTP4Nfjz"
    "oIlLGRVyYwB88l7SVCNmslSi6GJhBZbyVc9XXcQRqL6yWu0lOS26ruGD5BrEp0cdEhZVNeIAuTImfPjCmjqpt9RodAD8yZAmLv6wTWO+"
    "MHb9D1QcMfpJqlXMDyv8hgXfTY1I4VdbcclL2ejWo0sKJnTC93PNiQVbjTh6PkVTneGvc2q3wic7G/411cwuikumtI3KgsbxmQ53+Ask"
    "dNf0zLwr/GqrvZQGUXUuksWVgrjU0xxQepbNQENXjtHz89CrRpb9VJr8mOFfGddgSh4zPR8XDk1BXL4F/GiS8PEDv9qKk1MWfBLwsXRd"
    "U+OqII5ceZJ6/jz0qPy4i3C0Y+BL9zUhHZo3Pf+GL/h5CQqybCN3DzvVVnvp2ZAJfwV8wJ+z4IM2qXc4/GmNwFgzPf+Gn7CDyedYbPa6"
    "/YZrh1ttxSUPlil8jOFhJ/h1YWeBwI/TsANLHVrhvQa/Ny1s8GbYQc/37nBzE7HQiSIZjmrEZ/FFuxUZ7aQpfBzPOHq+rUbEDjcfmqUd"
    "LuyPdDr8aBryO/OiLMsSwqdDTS2TtYuQNhmuLZ6A76hGDNe1IuP83EWEj2uGjp5vqxFxqPljZlISyFATejZZbuf92Xx7zX0XlGfwfdhi"
    "e839b6XA4L9v6+7UyiMspczgM/i/AXtOjME/GxPIuFZWGHwG/3ThC9/+nfz5pwYe9M3/t2/+qm1DURiPwFQpJKBzMZEKutAbQuQhmfoC"
    "FQ3YQ9fsDSk1GQKyML1TwBEeNChTH6F/niMOHjQoYJkQe6jfpedeObaSuA1tyaTzGSHpWjLmdz9950jY/y93sGLQiRXpvnquUHnn1xXn"
    "ndLAjTwFVobvrfwQq/fQwef397PfwAdHkR4SfPV84IHJeThqw/hp+I/AOv7fwEfdfv1eYfisLQ0NvykRelMavPk53xJgG2pwVwZgNrvg"
    "SQwhTwroyrPSh6wL2Iuvwb1Kz3maCIBGrnFvxAN84wrSOB64WSyggTHjDONiHlpqB0mnCcDJy90qw99/0dEm55j5djAW9odax4S2FAr+"
    "Nl4BXmD6yvksvAlAvsY5eucvjZ2M3oKbbPpuNMbRBFro6v1kLYOdtbRwfrJ3zvrjCDdG+jw3Gg00/Bwz/7DiscODInYQvmngkkOwUw88"
    "UWTRxDAFlgSEv9WBLr7wmGMfGonYBh4BRArnBV4E6jEMu4B163paO4cG7k2NInZYD6MnA2dQShxnXnCPT6oM32rKcAEfEXNMmPDAFraG"
    "X5NSmDnT8G0f2hDCRKgJG+7FPXCxvKaZodeteQ1walHDjeM434gxbjR8q+fggA5/Fkcqq5bw619+VBi+HfJ78MHjs/zANgr4UkzK8D/d"
    "wYccGBLETdaKNFZldWjgRLzPMl1jEzGdw+e9wuw4ytc2i2tk2e3oDKso/InBSvCNInp2t45MBR8TyRN3sVMvYkcdM5d2O+a8hm/Mm5t0"
    "OlQNJ+9BY+F8PRvuqtiBV/qnDFV1vn8bghUW8O2A+XZgnU1mWHDVYJe3hakKLk6J9ajgIjx+WS+c70bMV20/S9yIJ8YeJDwV0Mq1863+"
    "bJn5uuC6l8X5HyvtfEuGCLnZ5VKqNlMKXI7qmgO2mKZE53tdrLayw4tW8xRg/qOnOtZZnmKyK/hqQ6/76PuNOMMFne9gq4nO133nouFv"
    "YctppRdMFYKTN9/o2Q4HPpvli72ukcP8T4rY/vDFNoQr76j4ou1fqdL5j0R3uI/E5JKyl5dvfUsH/cwfnLXzD9+D4K/QEqxZZhw+z7ch"
    "+E9Ow/OJHaIEwScRfIJPIvgEn0TwCT6J4BN8EsEn+CSCT/BJBJ/gkwg+wScRfIJP8EkEn+CTCD7BJxF8gk8i+ASfRPAJPongE3wSwSf4"
    "pD/qFw4+2A5pmyqdAAAAAElFTkSuQmCC"
)

# --------------------------------------------------------------------------
# time


class Clock:
    def __init__(self, iso):
        self.t = datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)

    def set(self, iso):
        self.__init__(iso)
        return self.now()

    def now(self):
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (self.t.microsecond // 1000)

    def adv(self, seconds):
        self.t += timedelta(milliseconds=round(seconds * 1000))
        return self.now()


# --------------------------------------------------------------------------
# entry builders (key order follows real Claude Code 2.1.x files)


class Ctx:
    """Envelope context of one writer (session/agent)."""

    def __init__(self, cwd, session, version, branch="main", sidechain=False, agent=None):
        self.cwd, self.session, self.version = cwd, session, version
        self.branch, self.sidechain, self.agent = branch, sidechain, agent

    def env(self, parent):
        d = {
            "parentUuid": parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": self.branch,
        }
        if self.agent:
            d["agentId"] = self.agent
        return d


def prompt(c, uid, parent, ts, content, image_ids=None):
    d = c.env(parent)
    d["type"] = "user"
    d["message"] = {"role": "user", "content": content}
    d["uuid"] = uid
    d["timestamp"] = ts
    if not c.sidechain:
        d["thinkingMetadata"] = {"maxThinkingTokens": 31999}
        d["todos"] = []
        d["permissionMode"] = "default"
        if image_ids:
            d["imagePasteIds"] = image_ids
    return d


def meta_user(c, uid, parent, ts, text, **extra):
    d = c.env(parent)
    d["type"] = "user"
    d["message"] = {"role": "user", "content": text}
    d.update({k: v for k, v in extra.items() if k.startswith("is")})
    d["uuid"] = uid
    d["timestamp"] = ts
    return d


def signature(text):
    h = hashlib.sha256(text.encode("utf-8")).digest()
    return base64.b64encode(b"\x12\x08" + h + h[::-1] + h).decode("ascii")


def thinking(text):
    return {"type": "thinking", "thinking": text, "signature": signature(text)}


def text(t):
    return {"type": "text", "text": t}


def tool_use(tid, name, inp):
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


class Msg:
    """One API response, written as one entry per content block."""

    def __init__(self, c, tag, n, model=MODEL, cache_read=18000, cache_create=900, out=240):
        self.c, self.mid, self.rid, self.model = c, msgid(tag, n), reqid(tag, n), model
        self.cache_read, self.cache_create, self.out = cache_read, cache_create, out

    def entry(self, uid, parent, ts, block, stop=None):
        d = self.c.env(parent)
        final = stop is not None
        d["message"] = {
            "model": self.model,
            "id": self.mid,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 3,
                "cache_creation_input_tokens": self.cache_create,
                "cache_read_input_tokens": self.cache_read,
                "output_tokens": self.out if final else 8,
                "service_tier": "standard",
            },
        }
        d["requestId"] = self.rid
        d["type"] = "assistant"
        d["uuid"] = uid
        d["timestamp"] = ts
        return d


def result(c, uid, parent, ts, tid, content, tur, is_error=False):
    d = c.env(parent)
    d["type"] = "user"
    d["message"] = {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result", "content": content, "is_error": is_error}]}
    d["uuid"] = uid
    d["timestamp"] = ts
    d["toolUseResult"] = tur
    d["sourceToolAssistantUUID"] = parent
    return d


def system(c, uid, parent, ts, subtype, fields, level=None, tool_use_id=None, is_meta=None):
    d = c.env(parent)
    d["type"] = "system"
    d["subtype"] = subtype
    d.update(fields)
    if level:
        d["level"] = level
    d["timestamp"] = ts
    d["uuid"] = uid
    if is_meta is not None:
        d["isMeta"] = is_meta
    if tool_use_id:
        d["toolUseID"] = tool_use_id
    return d


def stop_hook(c, uid, parent, ts, hook_id):
    return system(
        c, uid, parent, ts, "stop_hook_summary",
        {
            "hookCount": 1,
            "hookInfos": [{"command": "notify-send 'Claude Code' 'Done'"}],
            "hookErrors": [],
            "preventedContinuation": False,
            "stopReason": "",
            "hasOutput": False,
        },
        level="suggestion", tool_use_id=hook_id,
    )


def turn_duration(c, uid, parent, ts, ms):
    return system(c, uid, parent, ts, "turn_duration", {"durationMs": ms}, is_meta=False)


def attachment(c, uid, parent, ts, att):
    d = c.env(parent)
    d["type"] = "attachment"
    d["attachment"] = att
    d["uuid"] = uid
    d["timestamp"] = ts
    return d


def snapshot(message_id, ts, backups=None, update=False):
    return {
        "type": "file-history-snapshot",
        "messageId": message_id,
        "snapshot": {"messageId": message_id, "trackedFileBackups": backups or {}, "timestamp": ts},
        "isSnapshotUpdate": update,
    }


def catn(start, lines):
    return "\n".join("%6d\u2192%s" % (start + i, l) for i, l in enumerate(lines))


def gen_hash(s):
    return hashlib.sha256(s.encode()).hexdigest()[:16]


# --------------------------------------------------------------------------
# Project A: -home-alice-src-weather-cli


def project_a():
    s1 = []  # main S1 file
    agent = []  # S1/subagents/agent-<id>.jsonl
    c1 = Ctx(CWD_A, S1, "2.1.14")
    ca = Ctx(CWD_A, S1, "2.1.14", sidechain=True, agent=AGENT_ID)
    clk = Clock("2026-03-02T09:15:00.000Z")
    A = lambda n: U(T_TRUNK, n)

    # ---- prompt 1 -------------------------------------------------------
    ts = clk.now()
    s1.append(snapshot(A(1), clk.adv(0.146)))
    s1.append(prompt(c1, A(1), None, ts,
                     "`weather-cli forecast --hours 12` panics with `index out of bounds: the len is 0 but the index is 0` "
                     "for some remote stations (e.g. `--station EGPU`). Can you find out why and fix it?"))
    m = Msg(c1, T_TRUNK, 2, cache_read=11204, cache_create=4120, out=212)
    s1.append(m.entry(A(2), A(1), clk.adv(2.9), thinking(
        "The panic message says len is 0 at index 0, so something indexes the hourly array without checking "
        "it is non-empty. Stations without hourly coverage probably return an empty `hourly` list. I'll keep a "
        "short todo list, grep for the indexing, read the code, fix it and run the tests.")))
    s1.append(m.entry(A(3), A(2), clk.adv(0.7), text(
        "An empty `hourly` array indexed at `[0]` would explain that exact message. Let me track the steps and look for it.")))
    todos1 = [
        {"content": "Find where hourly data is indexed", "status": "in_progress", "activeForm": "Finding where hourly data is indexed"},
        {"content": "Return an error for empty hourly data", "status": "pending", "activeForm": "Returning an error for empty hourly data"},
        {"content": "Run the test suite", "status": "pending", "activeForm": "Running the test suite"},
    ]
    tid = toolu(T_TRUNK, 4)
    s1.append(m.entry(A(4), A(3), clk.adv(0.9), tool_use(tid, "TodoWrite", {"todos": todos1}), stop="tool_use"))
    s1.append(result(c1, A(5), A(4), clk.adv(0.05), tid,
                     "Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
                     "progress. Please proceed with the current tasks if applicable",
                     {"oldTodos": [], "newTodos": todos1}))

    # ---- Grep -----------------------------------------------------------
    m = Msg(c1, T_TRUNK, 6, cache_read=15324, cache_create=310, out=96)
    tid = toolu(T_TRUNK, 6)
    s1.append(m.entry(A(6), A(5), clk.adv(2.1), tool_use(tid, "Grep", {"pattern": "hourly\\[", "path": "src", "output_mode": "content", "-n": True}), stop="tool_use"))
    grep_out = "src/forecast.rs:41:    let first = &resp.hourly[0];\nsrc/render.rs:22:    for h in &f.hourly[..n] {"
    s1.append(result(c1, A(7), A(6), clk.adv(0.18), tid, grep_out,
                     {"mode": "content", "numFiles": 0, "filenames": [], "content": grep_out, "numLines": 2}))

    # ---- Read -----------------------------------------------------------
    m = Msg(c1, T_TRUNK, 8, cache_read=15634, cache_create=188, out=104)
    tid = toolu(T_TRUNK, 8)
    path_fc = CWD_A + "/src/forecast.rs"
    s1.append(m.entry(A(8), A(7), clk.adv(1.8), tool_use(tid, "Read", {"file_path": path_fc, "offset": 34, "limit": 14}), stop="tool_use"))
    fc_lines = [
        "pub fn summarize(resp: &ApiResponse, hours: usize) -> Result<Forecast, ForecastError> {",
        "    if hours == 0 || hours > 48 {",
        "        return Err(ForecastError::BadHours(hours));",
        "    }",
        "",
        "    // Current conditions come from the first hourly slot.",
        "    let first = &resp.hourly[0];",
        "    let now = Conditions::from(first);",
        "",
        "    let upcoming = resp.hourly.iter().take(hours).map(Hour::from).collect();",
        "    Ok(Forecast { station: resp.station.clone(), now, upcoming })",
        "}",
        "",
        "impl From<&HourlySlot> for Conditions {",
    ]
    s1.append(result(c1, A(9), A(8), clk.adv(0.04), tid, catn(35, fc_lines),
                     {"type": "text", "file": {"filePath": path_fc, "content": "\n".join(fc_lines), "numLines": 14, "startLine": 35, "totalLines": 87}}))

    # ---- Edit + PostToolUse hook attachment -----------------------------
    m = Msg(c1, T_TRUNK, 10, cache_read=15822, cache_create=402, out=331)
    s1.append(m.entry(A(10), A(9), clk.adv(3.2), text(
        "Found it: line 41 indexes `resp.hourly[0]` unconditionally. Stations without hourly coverage answer "
        "`\"hourly\": []`, so this panics. `ForecastError::NoHourlyData` already exists in `src/error.rs` but is "
        "never constructed, so I'll use it.")))
    tid = toolu(T_TRUNK, 11)
    old = "    let first = &resp.hourly[0];"
    new = ("    let Some(first) = resp.hourly.first() else {\n"
           "        return Err(ForecastError::NoHourlyData { station: resp.station.clone() });\n"
           "    };")
    s1.append(m.entry(A(11), A(10), clk.adv(1.6), tool_use(tid, "Edit", {"file_path": path_fc, "old_string": old, "new_string": new, "replace_all": False}), stop="tool_use"))
    orig = "\n".join(["use crate::error::ForecastError;"] + ["// ..."] + fc_lines) + "\n"
    patch = [{
        "oldStart": 38, "oldLines": 7, "newStart": 38, "newLines": 9,
        "lines": [
            "     }",
            " ",
            "     // Current conditions come from the first hourly slot.",
            "-    let first = &resp.hourly[0];",
            "+    let Some(first) = resp.hourly.first() else {",
            "+        return Err(ForecastError::NoHourlyData { station: resp.station.clone() });",
            "+    };",
            "     let now = Conditions::from(first);",
            " ",
        ],
    }]
    s1.append(result(c1, A(12), A(11), clk.adv(0.31), tid,
                     "The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s"
                     % (path_fc, catn(39, ["    // Current conditions come from the first hourly slot.",
                                           "    let Some(first) = resp.hourly.first() else {",
                                           "        return Err(ForecastError::NoHourlyData { station: resp.station.clone() });",
                                           "    };",
                                           "    let now = Conditions::from(first);"])),
                     {"filePath": path_fc, "oldString": old, "newString": new, "originalFile": orig,
                      "structuredPatch": patch, "userModified": False, "replaceAll": False}))
    s1.append(attachment(c1, A(13), A(12), clk.adv(0.42), {
        "type": "hook_success",
        "hookName": "PostToolUse:Edit",
        "toolUseID": tid,
        "hookEvent": "PostToolUse",
        "content": "",
        "stdout": "rustfmt: src/forecast.rs formatted\n",
        "stderr": "",
        "exitCode": 0,
        "command": "cargo fmt -- src/forecast.rs",
        "durationMs": 388,
    }))

    # ---- parallel tool call: Glob + Bash (2 entries, same message.id) ---
    m = Msg(c1, T_TRUNK, 14, cache_read=16224, cache_create=520, out=148)
    tid_glob, tid_bash = toolu(T_TRUNK, 14), toolu(T_TRUNK, 15)
    s1.append(m.entry(A(14), A(12), clk.adv(2.4), tool_use(tid_glob, "Glob", {"pattern": "tests/**/*.rs"})))
    s1.append(m.entry(A(15), A(14), clk.adv(0.38), tool_use(tid_bash, "Bash", {"command": "cargo test --color=always 2>&1 | tail -n 12", "description": "Run the test suite"}), stop="tool_use"))
    globs = [CWD_A + "/tests/cli.rs", CWD_A + "/tests/fixtures.rs"]
    s1.append(result(c1, A(16), A(14), clk.adv(0.12), tid_glob, "\n".join(globs),
                     {"filenames": globs, "durationMs": 9, "numFiles": 2, "truncated": False}))
    G, R, B, Z = "\u001b[32m", "\u001b[0m", "\u001b[1m", "\u001b[0m"
    test_out = (
        "%s%s   Compiling%s weather-cli v0.3.1 (/home/alice/src/weather-cli)\n" % (B, G, Z)
        + "%s%s    Finished%s `test` profile [unoptimized + debuginfo] target(s) in 6.02s\n" % (B, G, Z)
        + "%s%s     Running%s unittests src/main.rs (target/debug/deps/weather_cli-3c1f0e9a7b2d4e11)\n\n" % (B, G, Z)
        + "running 14 tests\n"
        + "test forecast::tests::empty_hourly_is_an_error ... %sok%s\n" % (G, R)
        + "test forecast::tests::summarize_12h ... %sok%s\n" % (G, R)
        + "test render::tests::table_has_header ... %sok%s\n\n" % (G, R)
        + "test result: %sok%s. 14 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s\n\n" % (G, R)
        + "%s%s     Running%s tests/cli.rs (target/debug/deps/cli-9d2b51c07ae84f3b)\n\n" % (B, G, Z)
        + "running 3 tests\n"
        + "test result: %sok%s. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.41s"
        % (G, R)
    )
    s1.append(result(c1, A(17), A(15), clk.adv(7.31), tid_bash, test_out,
                     {"stdout": test_out, "stderr": "", "interrupted": False, "isImage": False}))

    # ---- final answer with table + rust block ---------------------------
    m = Msg(c1, T_TRUNK, 18, cache_read=16744, cache_create=980, out=402)
    s1.append(m.entry(A(18), A(17), clk.adv(4.6), text(
        "Fixed. The panic came from `summarize()` taking the current conditions from `resp.hourly[0]` without "
        "checking that the list is non-empty.\n\n"
        "```rust\n"
        "let Some(first) = resp.hourly.first() else {\n"
        "    return Err(ForecastError::NoHourlyData { station: resp.station.clone() });\n"
        "};\n"
        "```\n\n"
        "The CLI now prints `error: station EGPU has no hourly forecast data` and exits with status 2.\n\n"
        "| Suite | Passed | Failed |\n"
        "|---|---:|---:|\n"
        "| unit (`src/`) | 14 | 0 |\n"
        "| integration (`tests/cli.rs`) | 3 | 0 |\n\n"
        "I also added `empty_hourly_is_an_error` to the unit tests so this stays fixed."), stop="end_turn"))

    # ai-title (metadata)
    s1.append({"type": "ai-title", "aiTitle": "Fix forecast panic on empty hourly data", "sessionId": S1})

    # ---- local slash command side chain (/cost) off A(18) ----------------
    s1.append(meta_user(c1, A(19), A(18), clk.adv(41.2),
                        "<command-name>/cost</command-name>\n            <command-message>cost</command-message>\n            <command-args></command-args>"))
    s1.append(meta_user(c1, A(20), A(19), clk.adv(0.0),
                        "<local-command-stdout>Total cost:            $0.0912\n"
                        "Total duration (API):  38.4s\n"
                        "Total duration (wall): 1m 54.2s\n"
                        "Total code changes:    4 lines added, 1 line removed\n"
                        "Usage by model:\n"
                        "    claude-sonnet-4-5:  97.2k input, 1.3k output, 81.5k cache read, 6.5k cache write ($0.0912)</local-command-stdout>"))
    clk.adv(3.0)  # (an entry of an unknown type stood here; it moved to tests/fixtures/odd)

    # ---- prompt 2 with a pasted image ----------------------------------
    ts = clk.adv(52.6)  # 09:17:xx
    s1.append(snapshot(A(21), clk.adv(0.1)))
    s1.append(prompt(c1, A(21), A(18), ts, [
        {"type": "text", "text": "[Image #1] Next: the `--format table` output is misaligned as soon as a temperature "
                                 "has a minus sign or a degree symbol (see screenshot). Can you fix the column padding?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
    ], image_ids=[1]))
    m = Msg(c1, T_TRUNK, 22, cache_read=17724, cache_create=1630, out=120)
    s1.append(m.entry(A(22), A(21), clk.adv(3.4), thinking(
        "The screenshot shows the columns drifting right on rows with negative temperatures. Formatting with "
        "`format!` width pads by chars, so a correct implementation would not drift; the padding helper probably "
        "counts bytes instead. Let me read render.rs.")))
    tid = toolu(T_TRUNK, 23)
    path_r = CWD_A + "/src/render.rs"
    s1.append(m.entry(A(23), A(22), clk.adv(0.8), tool_use(tid, "Read", {"file_path": path_r}), stop="tool_use"))
    r_lines = [
        "use crate::forecast::Forecast;",
        "",
        "fn pad(s: &str, width: usize) -> String {",
        "    // BUG? pads by byte length",
        "    format!(\"{}{}\", \" \".repeat(width.saturating_sub(s.len())), s)",
        "}",
        "",
        "pub fn table(f: &Forecast, n: usize) -> String {",
        "    let mut out = String::from(\"time     temp    wind\\n\");",
        "    for h in &f.hourly[..n] {",
        "        out += &format!(\"{} {} {}\\n\", h.time, pad(&h.temp, 7), pad(&h.wind, 7));",
        "    }",
        "    out",
        "}",
    ]
    s1.append(result(c1, A(24), A(23), clk.adv(0.03), tid, catn(9, r_lines),
                     {"type": "text", "file": {"filePath": path_r, "content": "\n".join(r_lines), "numLines": 14, "startLine": 9, "totalLines": 22}}))
    m = Msg(c1, T_TRUNK, 25, cache_read=19354, cache_create=610, out=498)
    tid = toolu(T_TRUNK, 25)
    path_t = CWD_A + "/src/table.rs"
    table_rs = (
        "//! Column formatting that pads by display width, not by bytes.\n\n"
        "pub fn pad_left(s: &str, width: usize) -> String {\n"
        "    let w = s.chars().count();\n"
        "    format!(\"{}{}\", \" \".repeat(width.saturating_sub(w)), s)\n"
        "}\n\n"
        "#[cfg(test)]\n"
        "mod tests {\n"
        "    use super::*;\n\n"
        "    #[test]\n"
        "    fn degree_sign_counts_once() {\n"
        "        assert_eq!(pad_left(\"-3\u00b0C\", 6), \"  -3\u00b0C\");\n"
        "    }\n"
        "}\n"
    )
    s1.append(m.entry(A(25), A(24), clk.adv(5.1), tool_use(tid, "Write", {"file_path": path_t, "content": table_rs}), stop="tool_use"))
    s1.append(result(c1, A(26), A(25), clk.adv(0.22), tid, "File created successfully at: " + path_t,
                     {"type": "create", "filePath": path_t, "content": table_rs, "structuredPatch": [], "originalFile": None}))
    m = Msg(c1, T_TRUNK, 27, cache_read=19964, cache_create=720, out=265)
    s1.append(m.entry(A(27), A(26), clk.adv(4.2), text(
        "The misalignment comes from `pad()` using `s.len()`, which counts **bytes**: `\u00b0` is two bytes in UTF-8, "
        "so every cell with a degree sign got one space too few.\n\n"
        "I added `src/table.rs` with a `pad_left()` that counts `chars()` instead, plus a unit test. "
        "`render.rs` still needs to call it \u2014 say the word and I'll switch it over."), stop="end_turn"))
    s1.append(stop_hook(c1, A(28), A(27), clk.adv(0.35), "6b1c3f1e-9a52-4d0e-8f43-2b7f3c8e1a01"))
    FORK1 = A(29)
    s1.append(turn_duration(c1, FORK1, A(28), clk.adv(0.01), 21650))

    # ---- fork 1, branch 1 (abandoned): units flag ------------------------
    B1 = lambda n: U(T_F1B1, n)
    ts = clk.set("2026-03-02T09:30:10.412Z")
    s1.append(prompt(c1, B1(1), FORK1, ts, "Now add a `--units imperial` flag so I can get \u00b0F and mph."))
    m = Msg(c1, T_F1B1, 2, cache_read=20684, cache_create=140, out=88)
    tid = toolu(T_F1B1, 2)
    s1.append(m.entry(B1(2), B1(1), clk.adv(2.7), tool_use(tid, "Grep", {"pattern": "celsius|kmh|units", "path": "src", "-i": True, "output_mode": "files_with_matches"}), stop="tool_use"))
    files = ["src/render.rs", "src/cli.rs"]
    s1.append(result(c1, B1(3), B1(2), clk.adv(0.15), tid, "Found 2 files\n" + "\n".join(files),
                     {"mode": "files_with_matches", "filenames": files, "numFiles": 2}))
    m = Msg(c1, T_F1B1, 4, cache_read=20824, cache_create=212, out=190)
    s1.append(m.entry(B1(4), B1(3), clk.adv(3.9), text(
        "Units are hard-coded: `render.rs` appends `\u00b0C` and `km/h`, and `cli.rs` has no units option. "
        "I'd add a `Units` enum to the CLI and convert at formatting time."), stop="end_turn"))
    ts = clk.set("2026-03-02T09:32:41.090Z")
    s1.append(prompt(c1, B1(5), B1(4), ts, "Use a `clap::ValueEnum` for it and do the conversion in `fmt_temp`."))
    m = Msg(c1, T_F1B1, 6, cache_read=21036, cache_create=260, out=301)
    tid = toolu(T_F1B1, 6)
    path_c = CWD_A + "/src/cli.rs"
    old = "    #[arg(long, default_value_t = 12)]\n    pub hours: usize,"
    new = (old + "\n\n    /// Unit system for temperatures and wind speed.\n"
           "    #[arg(long, value_enum, default_value_t = Units::Metric)]\n    pub units: Units,")
    s1.append(m.entry(B1(6), B1(5), clk.adv(4.4), tool_use(tid, "Edit", {"file_path": path_c, "old_string": old, "new_string": new, "replace_all": False}), stop="tool_use"))
    s1.append(result(c1, B1(7), B1(6), clk.adv(0.2), tid, "The file %s has been updated." % path_c,
                     {"filePath": path_c, "oldString": old, "newString": new, "originalFile": None,
                      "structuredPatch": [{"oldStart": 14, "oldLines": 2, "newStart": 14, "newLines": 6,
                                           "lines": ["     #[arg(long, default_value_t = 12)]", "     pub hours: usize,", "+",
                                                     "+    /// Unit system for temperatures and wind speed.",
                                                     "+    #[arg(long, value_enum, default_value_t = Units::Metric)]",
                                                     "+    pub units: Units,"]}],
                      "userModified": False, "replaceAll": False}))
    m = Msg(c1, T_F1B1, 8, cache_read=21296, cache_create=330, out=160)
    s1.append(m.entry(B1(8), B1(7), clk.adv(3.3), text(
        "Added `--units <metric|imperial>` (default `metric`). `fmt_temp` now takes the `Units` value and "
        "converts with `c * 9.0 / 5.0 + 32.0`."), stop="end_turn"))
    ts = clk.set("2026-03-02T09:35:05.777Z")
    s1.append(prompt(c1, B1(9), B1(8), ts, "What would the same conversion look like in Python? I want it in the fixture generator script."))
    m = Msg(c1, T_F1B1, 10, cache_read=21626, cache_create=120, out=214)
    F1B1_LEAF = B1(10)
    s1.append(m.entry(F1B1_LEAF, B1(9), clk.adv(4.8), text(
        "Same formulas, as a small helper:\n\n"
        "```python\n"
        "def to_imperial(temp_c: float, wind_kmh: float) -> tuple[float, float]:\n"
        "    \"\"\"Convert \u00b0C to \u00b0F and km/h to mph.\"\"\"\n"
        "    return temp_c * 9 / 5 + 32, wind_kmh / 1.609344\n"
        "\n"
        "assert to_imperial(0, 0) == (32.0, 0.0)\n"
        "```\n\n"
        "Round at formatting time rather than in the fixtures so the tests compare exact values."), stop="end_turn"))

    # ---- fork 1, branch 2 (active): HTTP retries ---------------------------
    B2 = lambda n: U(T_F1B2, n)
    ts = clk.set("2026-03-02T09:41:30.250Z")
    s1.append(snapshot(B2(1), clk.adv(0.12), {
        "src/forecast.rs": {"backupFileName": gen_hash("src/forecast.rs") + "@v1", "version": 1, "backupTime": "2026-03-02T09:15:17.902Z"},
        "src/table.rs": {"backupFileName": None, "version": 1, "backupTime": "2026-03-02T09:18:31.007Z"},
    }))
    s1.append(prompt(c1, B2(1), FORK1, ts,
                     "Scratch the units idea for now. The API sometimes answers 503 and the CLI just dies \u2014 let's make the "
                     "HTTP client retry. First get me an overview of how requests are made."))
    m = Msg(c1, T_F1B2, 2, cache_read=20684, cache_create=150, out=176)
    s1.append(m.entry(B2(2), B2(1), clk.adv(2.5), text("I'll have an Explore agent map out the HTTP client code first.")))
    tid_task = toolu(T_F1B2, 3)
    task_prompt = ("Find every place in /home/alice/src/weather-cli that performs HTTP requests. For each, report the "
                   "function, the reqwest client configuration (timeouts, headers) and how errors are mapped. "
                   "Also say whether any retry logic exists. Be concise.")
    s1.append(m.entry(B2(3), B2(2), clk.adv(1.4), tool_use(tid_task, "Task", {
        "description": "Map HTTP client code", "prompt": task_prompt, "subagent_type": "Explore"}), stop="tool_use"))

    # sub-agent transcript (own file, sessionId = S1)
    X = lambda n: U(T_AGENT, n)
    aclk = Clock(clk.adv(0.0))
    agent.append(prompt(ca, X(1), None, aclk.adv(0.6), task_prompt))
    am = Msg(ca, T_AGENT, 2, model=HAIKU, cache_read=0, cache_create=9120, out=140)
    agent.append(am.entry(X(2), X(1), aclk.adv(1.9), text("I'll search the sources for HTTP client usage.")))
    atid = toolu(T_AGENT, 3)
    agent.append(am.entry(X(3), X(2), aclk.adv(0.5), tool_use(atid, "Grep", {"pattern": "reqwest|Client::", "path": CWD_A + "/src", "output_mode": "files_with_matches"}), stop="tool_use"))
    agent.append(result(ca, X(4), X(3), aclk.adv(0.1), atid, "Found 1 file\n" + CWD_A + "/src/client.rs",
                        {"mode": "files_with_matches", "filenames": [CWD_A + "/src/client.rs"], "numFiles": 1}))
    am = Msg(ca, T_AGENT, 5, model=HAIKU, cache_read=9120, cache_create=260, out=72)
    atid = toolu(T_AGENT, 5)
    path_cl = CWD_A + "/src/client.rs"
    cl_lines = [
        "pub struct Client { http: reqwest::Client, base: Url }",
        "",
        "impl Client {",
        "    pub fn new(base: Url) -> Self {",
        "        let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();",
        "        Client { http, base }",
        "    }",
        "",
        "    pub async fn fetch_forecast(&self, station: &str) -> Result<ApiResponse, ForecastError> {",
        "        let url = self.base.join(&format!(\"forecast/{station}\"))?;",
        "        let resp = self.http.get(url).send().await?.error_for_status()?;",
        "        Ok(resp.json().await?)",
        "    }",
        "}",
    ]
    agent.append(am.entry(X(5), X(4), aclk.adv(1.2), tool_use(atid, "Read", {"file_path": path_cl}), stop="tool_use"))
    agent.append(result(ca, X(6), X(5), aclk.adv(0.05), atid, catn(1, cl_lines),
                        {"type": "text", "file": {"filePath": path_cl, "content": "\n".join(cl_lines), "numLines": 14, "startLine": 1, "totalLines": 14}}))
    am = Msg(ca, T_AGENT, 7, model=HAIKU, cache_read=9380, cache_create=610, out=233)
    report = ("## HTTP client overview\n\n"
              "- **Only call site:** `Client::fetch_forecast` in `src/client.rs` (one GET to `forecast/{station}`).\n"
              "- **Configuration:** a single `reqwest::Client` with a 10 s timeout, no custom headers.\n"
              "- **Errors:** `error_for_status()?` turns any 4xx/5xx into `ForecastError::Http` via `From<reqwest::Error>`.\n"
              "- **Retries:** none.")
    agent.append(am.entry(X(7), X(6), aclk.adv(3.6), text(report), stop="end_turn"))
    AGENT_LEAF = X(7)

    clk.set(aclk.adv(0.9))
    TASK_RESULT = B2(4)
    s1.append(result(c1, TASK_RESULT, B2(3), clk.now(), tid_task,
                     [text(report), text("agentId: %s (for resuming to continue this agent's work if needed)" % AGENT_ID)],
                     {"status": "completed", "prompt": task_prompt, "agentId": AGENT_ID, "content": [text(report)],
                      "totalDurationMs": 9817, "totalTokens": 10223, "totalToolUseCount": 2,
                      "usage": {"input_tokens": 6, "cache_creation_input_tokens": 610, "cache_read_input_tokens": 9380, "output_tokens": 233}}))
    m = Msg(c1, T_F1B2, 5, cache_read=20834, cache_create=640, out=355)
    FORK2 = B2(5)
    s1.append(m.entry(FORK2, TASK_RESULT, clk.adv(6.2), text(
        "All requests go through `Client::fetch_forecast`, and there is no retry logic. Proposal:\n\n"
        "1. Retry only on 5xx responses and timeouts; never on 4xx.\n"
        "2. At most 3 attempts with exponential backoff (200 ms, 400 ms).\n"
        "3. Keep the retry loop inside `fetch_forecast`, so callers don't change.\n\n"
        "Shall I implement it?"), stop="end_turn"))

    # ---- fork 2, branch 1 (abandoned): backoff crate ------------------------
    N1 = lambda n: U(T_F2B1, n)
    ts = clk.set("2026-03-02T09:47:12.003Z")
    s1.append(prompt(c1, N1(1), FORK2, ts, "Sounds good. Implement it with the `backoff` crate."))
    m = Msg(c1, T_F2B1, 2, cache_read=21474, cache_create=110, out=97)
    tid = toolu(T_F2B1, 2)
    s1.append(m.entry(N1(2), N1(1), clk.adv(2.2), tool_use(tid, "Bash", {"command": "cargo add backoff@0.4 --features tokio", "description": "Add the backoff crate"}), stop="tool_use"))
    add_out = ("\u001b[1m\u001b[32m    Updating\u001b[0m crates.io index\n"
               "\u001b[1m\u001b[32m      Adding\u001b[0m backoff v0.4.0 to dependencies\n"
               "             Features:\n             \u001b[32m+\u001b[0m tokio")
    s1.append(result(c1, N1(3), N1(2), clk.adv(1.9), tid, add_out,
                     {"stdout": "", "stderr": add_out, "interrupted": False, "isImage": False}))
    m = Msg(c1, T_F2B1, 4, cache_read=21584, cache_create=240, out=120)
    F2B1_LEAF = N1(4)
    s1.append(m.entry(F2B1_LEAF, N1(3), clk.adv(3.0), text(
        "Added `backoff` 0.4 with the `tokio` feature. Next I'd wrap the request in `backoff::future::retry` "
        "with an `ExponentialBackoff` capped at 3 attempts."), stop="end_turn"))

    # ---- fork 2, branch 2 (active): hand-rolled retry -----------------------
    N2 = lambda n: U(T_F2B2, n)
    ts = clk.set("2026-03-02T09:52:40.518Z")
    s1.append(prompt(c1, N2(1), FORK2, ts,
                     "Actually, no new dependencies. Hand-roll the retry loop: 3 attempts, exponential backoff starting "
                     "at 200 ms, only for 5xx and timeouts."))
    m = Msg(c1, T_F2B2, 2, cache_read=21474, cache_create=160, out=140)
    todos2 = [
        {"content": "Add retry loop to fetch_forecast", "status": "in_progress", "activeForm": "Adding retry loop to fetch_forecast"},
        {"content": "Run the test suite", "status": "pending", "activeForm": "Running the test suite"},
    ]
    tid = toolu(T_F2B2, 2)
    s1.append(m.entry(N2(2), N2(1), clk.adv(2.0), tool_use(tid, "TodoWrite", {"todos": todos2}), stop="tool_use"))
    s1.append(result(c1, N2(3), N2(2), clk.adv(0.04), tid,
                     "Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
                     "progress. Please proceed with the current tasks if applicable",
                     {"oldTodos": todos1, "newTodos": todos2}))
    m = Msg(c1, T_F2B2, 4, cache_read=21634, cache_create=420, out=512)
    tid = toolu(T_F2B2, 4)
    old = ("        let resp = self.http.get(url).send().await?.error_for_status()?;\n"
           "        Ok(resp.json().await?)")
    new = ("        let mut delay = Duration::from_millis(200);\n"
           "        for attempt in 1..=3 {\n"
           "            match self.http.get(url.clone()).send().await {\n"
           "                Ok(r) if r.status().is_server_error() && attempt < 3 => {}\n"
           "                Err(e) if e.is_timeout() && attempt < 3 => {}\n"
           "                other => return Ok(other?.error_for_status()?.json().await?),\n"
           "            }\n"
           "            tokio::time::sleep(delay).await;\n"
           "            delay *= 2;\n"
           "        }\n"
           "        unreachable!(\"the last attempt always returns\")")
    s1.append(m.entry(N2(4), N2(3), clk.adv(6.3), tool_use(tid, "Edit", {"file_path": path_cl, "old_string": old, "new_string": new, "replace_all": False}), stop="tool_use"))
    s1.append(result(c1, N2(5), N2(4), clk.adv(0.27), tid, "The file %s has been updated." % path_cl,
                     {"filePath": path_cl, "oldString": old, "newString": new, "originalFile": "\n".join(cl_lines) + "\n",
                      "structuredPatch": [{"oldStart": 10, "oldLines": 4, "newStart": 10, "newLines": 13,
                                           "lines": ["         let url = self.base.join(&format!(\"forecast/{station}\"))?;"]
                                           + ["-" + l for l in old.split("\n")] + ["+" + l for l in new.split("\n")]
                                           + ["     }"]}],
                      "userModified": False, "replaceAll": False}))
    m = Msg(c1, T_F2B2, 6, cache_read=22054, cache_create=700, out=66)
    tid = toolu(T_F2B2, 6)
    s1.append(m.entry(N2(6), N2(5), clk.adv(2.1), tool_use(tid, "Bash", {"command": "cargo test --color=always 2>&1 | tail -n 4", "description": "Run the test suite"}), stop="tool_use"))
    t2 = ("running 16 tests\n"
          "test client::tests::retries_on_503 ... \u001b[32mok\u001b[0m\n"
          "test client::tests::no_retry_on_404 ... \u001b[32mok\u001b[0m\n"
          "test result: \u001b[32mok\u001b[0m. 16 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.62s")
    s1.append(result(c1, N2(7), N2(6), clk.adv(8.8), tid, t2, {"stdout": t2, "stderr": "", "interrupted": False, "isImage": False}))
    m = Msg(c1, T_F2B2, 8, cache_read=22754, cache_create=300, out=230)
    s1.append(m.entry(N2(8), N2(7), clk.adv(3.5), text(
        "Done \u2014 no new dependencies. `fetch_forecast` now makes up to **3 attempts**, sleeping 200 ms then 400 ms, "
        "and only retries on 5xx responses and timeouts. I added `retries_on_503` and `no_retry_on_404`; all 16 tests pass."),
        stop="end_turn"))
    s1.append(stop_hook(c1, N2(9), N2(8), clk.adv(0.3), "0d7e4a55-3c21-4f6b-9e08-5a1d2c7b9f02"))
    S1_LEAF = N2(10)
    s1.append(turn_duration(c1, S1_LEAF, N2(9), clk.adv(0.01), 24110))
    s1.append({"type": "last-prompt", "lastPrompt": "Actually, no new dependencies. Hand-roll the retry loop: 3 attempts, "
               "exponential backoff starting at 200 ms, only for 5xx and timeouts.", "sessionId": S1})

    # ======================================================================
    # S2: resume into a new file (2.1.19 style): summaries, copies, new turns
    s2 = []
    s2.append({"type": "summary", "summary": "Add --units imperial flag (abandoned)", "leafUuid": F1B1_LEAF})
    s2.append({"type": "summary", "summary": "Retry via backoff crate (abandoned)", "leafUuid": F2B1_LEAF})

    by_uuid = {e["uuid"]: e for e in s1 if "uuid" in e}
    path = []
    u = S1_LEAF
    while u is not None:
        path.append(by_uuid[u])
        u = by_uuid[u]["parentUuid"]
    for e in reversed(path):
        cp = dict(e)
        cp["sessionId"] = S2
        s2.append(cp)

    c2 = Ctx(CWD_A, S2, "2.1.19")
    Y = lambda n: U(T_S2, n)
    ts = clk.set("2026-03-03T08:40:02.311Z")
    s2.append(snapshot(Y(1), clk.adv(0.1)))
    s2.append(prompt(c2, Y(1), S1_LEAF, ts,
                     "Let's also cache forecast responses on disk for 10 minutes so repeated runs don't hit the API."))
    m = Msg(c2, T_S2, 2, cache_read=0, cache_create=23310, out=690)
    s2.append(m.entry(Y(2), Y(1), clk.adv(3.1), thinking(
        "A simple file cache keyed by station under the XDG cache dir, storing the JSON body plus a fetched-at "
        "timestamp, is enough. Check the age on read and fall back to the network when stale.")))
    s2.append(m.entry(Y(3), Y(2), clk.adv(0.6), text("I'll add a small file cache keyed by station and hook it into `fetch_forecast`.")))
    tid = toolu(T_S2, 4)
    path_cache = CWD_A + "/src/cache.rs"
    cache_rs = (
        "use std::{fs, path::PathBuf, time::{Duration, SystemTime}};\n\n"
        "const TTL: Duration = Duration::from_secs(600);\n\n"
        "pub fn dir() -> PathBuf {\n"
        "    dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join(\"weather-cli\")\n"
        "}\n\n"
        "pub fn get(station: &str) -> Option<String> {\n"
        "    let p = dir().join(format!(\"{station}.json\"));\n"
        "    let age = fs::metadata(&p).ok()?.modified().ok()?.elapsed().ok()?;\n"
        "    (age < TTL).then(|| fs::read_to_string(p).ok()).flatten()\n"
        "}\n\n"
        "pub fn put(station: &str, body: &str) -> std::io::Result<()> {\n"
        "    fs::create_dir_all(dir())?;\n"
        "    fs::write(dir().join(format!(\"{station}.json\")), body)\n"
        "}\n"
    )
    s2.append(m.entry(Y(4), Y(3), clk.adv(7.4), tool_use(tid, "Write", {"file_path": path_cache, "content": cache_rs}), stop="tool_use"))
    s2.append(result(c2, Y(5), Y(4), clk.adv(0.2), tid, "File created successfully at: " + path_cache,
                     {"type": "create", "filePath": path_cache, "content": cache_rs, "structuredPatch": [], "originalFile": None}))
    m = Msg(c2, T_S2, 6, cache_read=23310, cache_create=780, out=210)
    tid = toolu(T_S2, 6)
    old = "    pub async fn fetch_forecast(&self, station: &str) -> Result<ApiResponse, ForecastError> {"
    new = (old + "\n        if let Some(body) = cache::get(station) {\n"
           "            return Ok(serde_json::from_str(&body)?);\n        }")
    s2.append(m.entry(Y(6), Y(5), clk.adv(3.9), tool_use(tid, "Edit", {"file_path": path_cl, "old_string": old, "new_string": new, "replace_all": False}), stop="tool_use"))
    s2.append(result(c2, Y(7), Y(6), clk.adv(0.25), tid, "The file %s has been updated." % path_cl,
                     {"filePath": path_cl, "oldString": old, "newString": new, "originalFile": None,
                      "structuredPatch": [{"oldStart": 9, "oldLines": 1, "newStart": 9, "newLines": 4,
                                           "lines": [" " + old] + ["+" + l for l in new.split("\n")[1:]]}],
                      "userModified": False, "replaceAll": False}))
    m = Msg(c2, T_S2, 8, cache_read=24090, cache_create=260, out=70)
    tid = toolu(T_S2, 8)
    s2.append(m.entry(Y(8), Y(7), clk.adv(2.4), tool_use(tid, "Bash", {"command": "cargo build --color=always", "description": "Build the project"}), stop="tool_use"))
    s2.append({"type": "queue-operation", "operation": "enqueue", "timestamp": clk.adv(1.5),
               "content": "and make the cache directory configurable with WEATHER_CACHE_DIR", "sessionId": S2})
    build = ("\u001b[1m\u001b[32m   Compiling\u001b[0m weather-cli v0.3.1 (/home/alice/src/weather-cli)\n"
             "\u001b[1m\u001b[32m    Finished\u001b[0m `dev` profile [unoptimized + debuginfo] target(s) in 4.87s")
    s2.append(result(c2, Y(9), Y(8), clk.adv(3.6), tid, build, {"stdout": "", "stderr": build, "interrupted": False, "isImage": False}))
    m = Msg(c2, T_S2, 10, cache_read=24350, cache_create=340, out=150)
    s2.append(m.entry(Y(10), Y(9), clk.adv(2.8), text(
        "Added `src/cache.rs`: responses are stored as `<cache dir>/weather-cli/<station>.json` and reused for "
        "10 minutes. It builds cleanly."), stop="end_turn"))
    s2.append(stop_hook(c2, Y(11), Y(10), clk.adv(0.3), "3e9a0b17-55c4-4d2a-8b6e-0f4c1d2e3a03"))
    s2.append(turn_duration(c2, Y(12), Y(11), clk.adv(0.01), 27840))
    s2.append({"type": "queue-operation", "operation": "dequeue", "timestamp": clk.adv(0.4), "sessionId": S2})
    s2.append(prompt(c2, Y(13), Y(12), clk.adv(0.003), "and make the cache directory configurable with WEATHER_CACHE_DIR"))
    m = Msg(c2, T_S2, 14, cache_read=24690, cache_create=200, out=160)
    tid = toolu(T_S2, 14)
    old = "    dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join(\"weather-cli\")"
    new = ("    if let Some(d) = std::env::var_os(\"WEATHER_CACHE_DIR\") {\n        return d.into();\n    }\n" + old)
    s2.append(m.entry(Y(14), Y(13), clk.adv(3.3), tool_use(tid, "Edit", {"file_path": path_cache, "old_string": old, "new_string": new, "replace_all": False}), stop="tool_use"))
    s2.append(result(c2, Y(15), Y(14), clk.adv(0.2), tid, "The file %s has been updated." % path_cache,
                     {"filePath": path_cache, "oldString": old, "newString": new, "originalFile": cache_rs,
                      "structuredPatch": [{"oldStart": 5, "oldLines": 3, "newStart": 5, "newLines": 6,
                                           "lines": [" pub fn dir() -> PathBuf {"] + ["+" + l for l in new.split("\n")[:3]] + [" " + old, " }"]}],
                      "userModified": False, "replaceAll": False}))
    m = Msg(c2, T_S2, 16, cache_read=24890, cache_create=120, out=60)
    s2.append(m.entry(Y(16), Y(15), clk.adv(2.6), text("`WEATHER_CACHE_DIR` now overrides the cache location."), stop="end_turn"))
    PRE_COMPACT = Y(17)
    s2.append(turn_duration(c2, PRE_COMPACT, Y(16), clk.adv(0.01), 6720))

    # ---- manual compaction ---------------------------------------------
    BOUNDARY = Y(18)
    bd = c2.env(None)
    bd = {"parentUuid": None, "logicalParentUuid": PRE_COMPACT, **{k: v for k, v in bd.items() if k != "parentUuid"}}
    bd.update({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
               "timestamp": clk.set("2026-03-03T08:49:30.004Z"), "uuid": BOUNDARY, "level": "info",
               "compactMetadata": {"trigger": "manual", "preTokens": 25110}})
    s2.append(bd)
    summary_text = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\n"
        "Analysis:\n"
        "The user is improving `weather-cli`, a Rust command-line client for a weather API.\n\n"
        "Summary:\n"
        "1. Primary Request and Intent:\n"
        "   - Fix a panic on empty hourly data (done: `resp.hourly.first()` + `ForecastError::NoHourlyData`).\n"
        "   - Fix misaligned table columns (done: `src/table.rs::pad_left` pads by chars).\n"
        "   - Retry HTTP requests on 5xx/timeouts without new dependencies (done: 3 attempts, 200/400 ms backoff).\n"
        "   - Cache responses on disk for 10 minutes, overridable with `WEATHER_CACHE_DIR` (done: `src/cache.rs`).\n"
        "2. Files touched: src/forecast.rs, src/table.rs, src/client.rs, src/cache.rs.\n"
        "3. Pending: none.")
    s2.append(meta_user(c2, Y(19), BOUNDARY, clk.adv(0.002), summary_text, isCompactSummary=True, isVisibleInTranscriptOnly=True))
    s2.append(meta_user(c2, Y(20), Y(19), clk.adv(0.05),
                        "<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>"))
    s2.append(meta_user(c2, Y(21), Y(20), clk.adv(0.0),
                        "<local-command-stdout>\u001b[2mCompacted (ctrl+o to see full summary)\u001b[22m</local-command-stdout>"))
    ts = clk.set("2026-03-03T08:52:10.640Z")
    s2.append(snapshot(Y(22), clk.adv(0.1)))
    s2.append(prompt(c2, Y(22), Y(21), ts, "Now document the cache and the retry behaviour in the README."))
    m = Msg(c2, T_S2, 23, cache_read=0, cache_create=9650, out=270)
    tid = toolu(T_S2, 23)
    path_md = CWD_A + "/README.md"
    old = "## Usage\n"
    new = ("## Usage\n\n"
           "### Network behaviour\n\n"
           "- Failed requests (HTTP 5xx or timeouts) are retried up to 3 times with exponential backoff.\n"
           "- Responses are cached for 10 minutes in `~/.cache/weather-cli/`; set `WEATHER_CACHE_DIR` to move the cache.\n")
    s2.append(m.entry(Y(23), Y(22), clk.adv(4.2), tool_use(tid, "Edit", {"file_path": path_md, "old_string": old, "new_string": new, "replace_all": False}), stop="tool_use"))
    s2.append(result(c2, Y(24), Y(23), clk.adv(0.2), tid, "The file %s has been updated." % path_md,
                     {"filePath": path_md, "oldString": old, "newString": new, "originalFile": None,
                      "structuredPatch": [{"oldStart": 12, "oldLines": 1, "newStart": 12, "newLines": 6,
                                           "lines": [" ## Usage"] + ["+" + l for l in new.split("\n")[1:-1]]}],
                      "userModified": False, "replaceAll": False}))
    m = Msg(c2, T_S2, 25, cache_read=9650, cache_create=330, out=120)
    s2.append(m.entry(Y(25), Y(24), clk.adv(2.9), text(
        "Added a **Network behaviour** section under *Usage* in `README.md` covering retries and the cache."), stop="end_turn"))
    s2.append(stop_hook(c2, Y(26), Y(25), clk.adv(0.3), "9f2c6d4b-1e7a-4b38-a5c9-7d0e3f1b2c04"))
    S2_LEAF = Y(27)
    s2.append(turn_duration(c2, S2_LEAF, Y(26), clk.adv(0.01), 7810))
    s2.append({"type": "custom-title", "customTitle": "weather-cli: retries + cache", "sessionId": S2})
    s2.append({"type": "last-prompt", "lastPrompt": "Now document the cache and the retry behaviour in the README.", "sessionId": S2})

    d = "-home-alice-src-weather-cli"
    meta = {"agentType": "Explore", "description": "Map HTTP client code"}
    files = {
        d + "/" + S1 + ".jsonl": s1,
        d + "/" + S2 + ".jsonl": s2,
        d + "/" + S1 + "/subagents/agent-" + AGENT_ID + ".jsonl": agent,
    }
    return files, {d + "/" + S1 + "/subagents/agent-" + AGENT_ID + ".meta.json": meta}


# --------------------------------------------------------------------------
# Project B: -home-alice-notes


def project_b():
    c = Ctx(CWD_B, SB, "2.1.42", branch="")
    clk = Clock("2026-03-04T18:05:00.000Z")
    N = lambda n: U(T_B, n)
    out = []
    ts = clk.now()
    out.append(snapshot(N(1), clk.adv(0.1)))
    out.append(prompt(c, N(1), None, ts, "How many notes did I write in February? They're named like `2026-02-14.md`."))
    m = Msg(c, T_B, 2, cache_read=8120, cache_create=2240, out=90)
    tid = toolu(T_B, 2)
    out.append(m.entry(N(2), N(1), clk.adv(2.6), tool_use(tid, "Bash", {"command": "ls journal/2026-02-*.md | wc -l", "description": "Count February notes"}), stop="tool_use"))
    err = "Exit code 2\nls: cannot access 'journal/2026-02-*.md': No such file or directory\n0"
    out.append(result(c, N(3), N(2), clk.adv(0.08), tid, err, "Error: " + err, is_error=True))
    m = Msg(c, T_B, 4, cache_read=10360, cache_create=180, out=70)
    out.append(m.entry(N(4), N(3), clk.adv(2.2), text("There's no `journal/` directory here \u2014 let me search for the files instead.")))
    tid = toolu(T_B, 5)
    out.append(m.entry(N(5), N(4), clk.adv(0.4), tool_use(tid, "Glob", {"pattern": "**/2026-02-*.md"}), stop="tool_use"))
    names = ["daily/2026-02-03.md", "daily/2026-02-09.md", "daily/2026-02-14.md", "daily/2026-02-20.md", "daily/2026-02-27.md"]
    full = [CWD_B + "/" + n for n in names]
    out.append(result(c, N(6), N(5), clk.adv(0.1), tid, "\n".join(full), {"filenames": full, "durationMs": 14, "numFiles": 5, "truncated": False}))
    m = Msg(c, T_B, 7, cache_read=10540, cache_create=260, out=110)
    out.append(m.entry(N(7), N(6), clk.adv(2.5), text(
        "You wrote **5** notes in February, all under `daily/`: the 3rd, 9th, 14th, 20th and 27th."), stop="end_turn"))
    out.append(turn_duration(c, N(8), N(7), clk.adv(0.01), 7930))
    ts = clk.set("2026-03-04T18:06:31.204Z")
    out.append(prompt(c, N(9), N(8), ts, "Put their first lines in a table."))
    m = Msg(c, T_B, 10, cache_read=10800, cache_create=90, out=60)
    tid = toolu(T_B, 10)
    out.append(m.entry(N(10), N(9), clk.adv(2.1), tool_use(tid, "Bash", {"command": "head -qn1 daily/2026-02-*.md", "description": "Show first line of each note"}), stop="tool_use"))
    heads = ["# Dentist, then groceries", "# Bike repair notes", "# Valentine's dinner ideas", "# Tax documents checklist", "# Trip to Lyon \u2014 packing"]
    out.append(result(c, N(11), N(10), clk.adv(0.06), tid, "\n".join(heads),
                      {"stdout": "\n".join(heads), "stderr": "", "interrupted": False, "isImage": False}))
    m = Msg(c, T_B, 12, cache_read=10890, cache_create=140, out=190)
    tbl = "| Date | First line |\n|---|---|\n" + "\n".join("| %s | %s |" % (n[6:16], h[2:]) for n, h in zip(names, heads))
    out.append(m.entry(N(12), N(11), clk.adv(3.0), text(tbl), stop="end_turn"))
    out.append(turn_duration(c, N(13), N(12), clk.adv(0.01), 5240))
    ts = clk.set("2026-03-04T18:07:02.950Z")
    out.append(prompt(c, N(14), N(13), ts, "Perfect, thanks!"))
    m = Msg(c, T_B, 15, cache_read=11030, cache_create=40, out=12)
    out.append(m.entry(N(15), N(14), clk.adv(1.7), text("You're welcome!"), stop="end_turn"))
    out.append({"type": "ai-title", "aiTitle": "Count February notes", "sessionId": SB})
    out.append({"type": "last-prompt", "lastPrompt": "Perfect, thanks!", "sessionId": SB})
    return {"-home-alice-notes/" + SB + ".jsonl": out}, {}


# --------------------------------------------------------------------------


def dump_line(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    fa, ma = project_a()
    fb, mb = project_b()
    for rel, entries in sorted({**fa, **fb}.items()):
        p = os.path.join(OUT, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            for e in entries:
                f.write(dump_line(e) + "\n")
    for rel, obj in sorted({**ma, **mb}.items()):
        p = os.path.join(OUT, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            f.write(dump_line(obj))  # real sidecars have no trailing newline
    print("wrote", OUT)


if __name__ == "__main__":
    main()
