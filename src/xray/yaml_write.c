/* llvm-xray's YAML trace form, written exactly as `llvm-xray convert -f yaml`
 * (LLVM 14) writes it: llvm::yaml::Output with wrapping off, a flow mapping
 * per record, strings quoted by llvm::yaml::needsQuotes and double-quoted
 * ones escaped by llvm::yaml::escape. One record line at a time: constant
 * memory per record. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_yaml.h>

#include "core/strbuf.h"

enum { Q_PLAIN, Q_SINGLE, Q_DOUBLE };

struct tk_xray_yaml_writer {
    FILE *out;
    tk_strbuf line;
    uint64_t records;
    tk_status status; /* first error */
    tk_error first;
};

/* ---- quoting (llvm/Support/YAMLTraits.h, LLVM 14) */

/* Code points >= 0x80 that LLVM 14's sys::unicode::isPrintable rejects, as
 * closed ranges. Measured from llvm-xray 14 itself: every code point
 * 0x80..0x10FFFF (surrogates excepted) written as custom-event data through
 * `llvm-xray convert -f yaml`; these are the ones it escaped. */
static const uint32_t nonprintable[][2] = {
    {0x80, 0x84}, {0x86, 0x9F}, {0x34F, 0x34F}, {0x378, 0x379}, {0x37F, 0x383},
    {0x38B, 0x38B}, {0x38D, 0x38D}, {0x3A2, 0x3A2}, {0x528, 0x530},
    {0x557, 0x558}, {0x560, 0x560}, {0x588, 0x588}, {0x58B, 0x58E},
    {0x590, 0x590}, {0x5C8, 0x5CF}, {0x5EB, 0x5EF}, {0x5F5, 0x605},
    {0x61C, 0x61D}, {0x6DD, 0x6DD}, {0x70E, 0x70F}, {0x74B, 0x74C},
    {0x7B2, 0x7BF}, {0x7FB, 0x7FF}, {0x82E, 0x82F}, {0x83F, 0x83F},
    {0x85C, 0x85D}, {0x85F, 0x89F}, {0x8A1, 0x8A1}, {0x8AD, 0x8E3},
    {0x8FF, 0x8FF}, {0x978, 0x978}, {0x980, 0x980}, {0x984, 0x984},
    {0x98D, 0x98E}, {0x991, 0x992}, {0x9A9, 0x9A9}, {0x9B1, 0x9B1},
    {0x9B3, 0x9B5}, {0x9BA, 0x9BB}, {0x9C5, 0x9C6}, {0x9C9, 0x9CA},
    {0x9CF, 0x9D6}, {0x9D8, 0x9DB}, {0x9DE, 0x9DE}, {0x9E4, 0x9E5},
    {0x9FC, 0xA00}, {0xA04, 0xA04}, {0xA0B, 0xA0E}, {0xA11, 0xA12},
    {0xA29, 0xA29}, {0xA31, 0xA31}, {0xA34, 0xA34}, {0xA37, 0xA37},
    {0xA3A, 0xA3B}, {0xA3D, 0xA3D}, {0xA43, 0xA46}, {0xA49, 0xA4A},
    {0xA4E, 0xA50}, {0xA52, 0xA58}, {0xA5D, 0xA5D}, {0xA5F, 0xA65},
    {0xA76, 0xA80}, {0xA84, 0xA84}, {0xA8E, 0xA8E}, {0xA92, 0xA92},
    {0xAA9, 0xAA9}, {0xAB1, 0xAB1}, {0xAB4, 0xAB4}, {0xABA, 0xABB},
    {0xAC6, 0xAC6}, {0xACA, 0xACA}, {0xACE, 0xACF}, {0xAD1, 0xADF},
    {0xAE4, 0xAE5}, {0xAF2, 0xB00}, {0xB04, 0xB04}, {0xB0D, 0xB0E},
    {0xB11, 0xB12}, {0xB29, 0xB29}, {0xB31, 0xB31}, {0xB34, 0xB34},
    {0xB3A, 0xB3B}, {0xB45, 0xB46}, {0xB49, 0xB4A}, {0xB4E, 0xB55},
    {0xB58, 0xB5B}, {0xB5E, 0xB5E}, {0xB64, 0xB65}, {0xB78, 0xB81},
    {0xB84, 0xB84}, {0xB8B, 0xB8D}, {0xB91, 0xB91}, {0xB96, 0xB98},
    {0xB9B, 0xB9B}, {0xB9D, 0xB9D}, {0xBA0, 0xBA2}, {0xBA5, 0xBA7},
    {0xBAB, 0xBAD}, {0xBBA, 0xBBD}, {0xBC3, 0xBC5}, {0xBC9, 0xBC9},
    {0xBCE, 0xBCF}, {0xBD1, 0xBD6}, {0xBD8, 0xBE5}, {0xBFB, 0xC00},
    {0xC04, 0xC04}, {0xC0D, 0xC0D}, {0xC11, 0xC11}, {0xC29, 0xC29},
    {0xC34, 0xC34}, {0xC3A, 0xC3C}, {0xC45, 0xC45}, {0xC49, 0xC49},
    {0xC4E, 0xC54}, {0xC57, 0xC57}, {0xC5A, 0xC5F}, {0xC64, 0xC65},
    {0xC70, 0xC77}, {0xC80, 0xC81}, {0xC84, 0xC84}, {0xC8D, 0xC8D},
    {0xC91, 0xC91}, {0xCA9, 0xCA9}, {0xCB4, 0xCB4}, {0xCBA, 0xCBB},
    {0xCC5, 0xCC5}, {0xCC9, 0xCC9}, {0xCCE, 0xCD4}, {0xCD7, 0xCDD},
    {0xCDF, 0xCDF}, {0xCE4, 0xCE5}, {0xCF0, 0xCF0}, {0xCF3, 0xD01},
    {0xD04, 0xD04}, {0xD0D, 0xD0D}, {0xD11, 0xD11}, {0xD3B, 0xD3C},
    {0xD45, 0xD45}, {0xD49, 0xD49}, {0xD4F, 0xD56}, {0xD58, 0xD5F},
    {0xD64, 0xD65}, {0xD76, 0xD78}, {0xD80, 0xD81}, {0xD84, 0xD84},
    {0xD97, 0xD99}, {0xDB2, 0xDB2}, {0xDBC, 0xDBC}, {0xDBE, 0xDBF},
    {0xDC7, 0xDC9}, {0xDCB, 0xDCE}, {0xDD5, 0xDD5}, {0xDD7, 0xDD7},
    {0xDE0, 0xDF1}, {0xDF5, 0xE00}, {0xE3B, 0xE3E}, {0xE5C, 0xE80},
    {0xE83, 0xE83}, {0xE85, 0xE86}, {0xE89, 0xE89}, {0xE8B, 0xE8C},
    {0xE8E, 0xE93}, {0xE98, 0xE98}, {0xEA0, 0xEA0}, {0xEA4, 0xEA4},
    {0xEA6, 0xEA6}, {0xEA8, 0xEA9}, {0xEAC, 0xEAC}, {0xEBA, 0xEBA},
    {0xEBE, 0xEBF}, {0xEC5, 0xEC5}, {0xEC7, 0xEC7}, {0xECE, 0xECF},
    {0xEDA, 0xEDB}, {0xEE0, 0xEFF}, {0xF48, 0xF48}, {0xF6D, 0xF70},
    {0xF98, 0xF98}, {0xFBD, 0xFBD}, {0xFCD, 0xFCD}, {0xFDB, 0xFFF},
    {0x10C6, 0x10C6}, {0x10C8, 0x10CC}, {0x10CE, 0x10CF}, {0x115F, 0x1160},
    {0x1249, 0x1249}, {0x124E, 0x124F}, {0x1257, 0x1257}, {0x1259, 0x1259},
    {0x125E, 0x125F}, {0x1289, 0x1289}, {0x128E, 0x128F}, {0x12B1, 0x12B1},
    {0x12B6, 0x12B7}, {0x12BF, 0x12BF}, {0x12C1, 0x12C1}, {0x12C6, 0x12C7},
    {0x12D7, 0x12D7}, {0x1311, 0x1311}, {0x1316, 0x1317}, {0x135B, 0x135C},
    {0x137D, 0x137F}, {0x139A, 0x139F}, {0x13F5, 0x13FF}, {0x169D, 0x169F},
    {0x16F1, 0x16FF}, {0x170D, 0x170D}, {0x1715, 0x171F}, {0x1737, 0x173F},
    {0x1754, 0x175F}, {0x176D, 0x176D}, {0x1771, 0x1771}, {0x1774, 0x177F},
    {0x17B4, 0x17B5}, {0x17DE, 0x17DF}, {0x17EA, 0x17EF}, {0x17FA, 0x17FF},
    {0x180B, 0x180D}, {0x180F, 0x180F}, {0x181A, 0x181F}, {0x1878, 0x187F},
    {0x18AB, 0x18AF}, {0x18F6, 0x18FF}, {0x191D, 0x191F}, {0x192C, 0x192F},
    {0x193C, 0x193F}, {0x1941, 0x1943}, {0x196E, 0x196F}, {0x1975, 0x197F},
    {0x19AC, 0x19AF}, {0x19CA, 0x19CF}, {0x19DB, 0x19DD}, {0x1A1C, 0x1A1D},
    {0x1A5F, 0x1A5F}, {0x1A7D, 0x1A7E}, {0x1A8A, 0x1A8F}, {0x1A9A, 0x1A9F},
    {0x1AAE, 0x1AFF}, {0x1B4C, 0x1B4F}, {0x1B7D, 0x1B7F}, {0x1BF4, 0x1BFB},
    {0x1C38, 0x1C3A}, {0x1C4A, 0x1C4C}, {0x1C80, 0x1CBF}, {0x1CC8, 0x1CCF},
    {0x1CF7, 0x1CFF}, {0x1DE7, 0x1DFB}, {0x1F16, 0x1F17}, {0x1F1E, 0x1F1F},
    {0x1F46, 0x1F47}, {0x1F4E, 0x1F4F}, {0x1F58, 0x1F58}, {0x1F5A, 0x1F5A},
    {0x1F5C, 0x1F5C}, {0x1F5E, 0x1F5E}, {0x1F7E, 0x1F7F}, {0x1FB5, 0x1FB5},
    {0x1FC5, 0x1FC5}, {0x1FD4, 0x1FD5}, {0x1FDC, 0x1FDC}, {0x1FF0, 0x1FF1},
    {0x1FF5, 0x1FF5}, {0x1FFF, 0x1FFF}, {0x200B, 0x200F}, {0x202A, 0x202E},
    {0x2060, 0x206F}, {0x2072, 0x2073}, {0x208F, 0x208F}, {0x209D, 0x209F},
    {0x20BB, 0x20CF}, {0x20F1, 0x20FF}, {0x218A, 0x218F}, {0x23F4, 0x23FF},
    {0x2427, 0x243F}, {0x244B, 0x245F}, {0x2700, 0x2700}, {0x2B4D, 0x2B4F},
    {0x2B5A, 0x2BFF}, {0x2C2F, 0x2C2F}, {0x2C5F, 0x2C5F}, {0x2CF4, 0x2CF8},
    {0x2D26, 0x2D26}, {0x2D28, 0x2D2C}, {0x2D2E, 0x2D2F}, {0x2D68, 0x2D6E},
    {0x2D71, 0x2D7E}, {0x2D97, 0x2D9F}, {0x2DA7, 0x2DA7}, {0x2DAF, 0x2DAF},
    {0x2DB7, 0x2DB7}, {0x2DBF, 0x2DBF}, {0x2DC7, 0x2DC7}, {0x2DCF, 0x2DCF},
    {0x2DD7, 0x2DD7}, {0x2DDF, 0x2DDF}, {0x2E3C, 0x2E7F}, {0x2E9A, 0x2E9A},
    {0x2EF4, 0x2EFF}, {0x2FD6, 0x2FEF}, {0x2FFC, 0x2FFF}, {0x3040, 0x3040},
    {0x3097, 0x3098}, {0x3100, 0x3104}, {0x312E, 0x3130}, {0x3164, 0x3164},
    {0x318F, 0x318F}, {0x31BB, 0x31BF}, {0x31E4, 0x31EF}, {0x321F, 0x321F},
    {0x32FF, 0x32FF}, {0x4DB6, 0x4DBF}, {0x9FCD, 0x9FFF}, {0xA48D, 0xA48F},
    {0xA4C7, 0xA4CF}, {0xA62C, 0xA63F}, {0xA698, 0xA69E}, {0xA6F8, 0xA6FF},
    {0xA78F, 0xA78F}, {0xA794, 0xA79F}, {0xA7AB, 0xA7F7}, {0xA82C, 0xA82F},
    {0xA83A, 0xA83F}, {0xA878, 0xA87F}, {0xA8C5, 0xA8CD}, {0xA8DA, 0xA8DF},
    {0xA8FC, 0xA8FF}, {0xA954, 0xA95E}, {0xA97D, 0xA97F}, {0xA9CE, 0xA9CE},
    {0xA9DA, 0xA9DD}, {0xA9E0, 0xA9FF}, {0xAA37, 0xAA3F}, {0xAA4E, 0xAA4F},
    {0xAA5A, 0xAA5B}, {0xAA7C, 0xAA7F}, {0xAAC3, 0xAADA}, {0xAAF7, 0xAB00},
    {0xAB07, 0xAB08}, {0xAB0F, 0xAB10}, {0xAB17, 0xAB1F}, {0xAB27, 0xAB27},
    {0xAB2F, 0xABBF}, {0xABEE, 0xABEF}, {0xABFA, 0xABFF}, {0xD7A4, 0xD7AF},
    {0xD7C7, 0xD7CA}, {0xD7FC, 0xD7FF}, {0xFA6E, 0xFA6F}, {0xFADA, 0xFAFF},
    {0xFB07, 0xFB12}, {0xFB18, 0xFB1C}, {0xFB37, 0xFB37}, {0xFB3D, 0xFB3D},
    {0xFB3F, 0xFB3F}, {0xFB42, 0xFB42}, {0xFB45, 0xFB45}, {0xFBC2, 0xFBD2},
    {0xFD40, 0xFD4F}, {0xFD90, 0xFD91}, {0xFDC8, 0xFDEF}, {0xFDFE, 0xFE0F},
    {0xFE1A, 0xFE1F}, {0xFE27, 0xFE2F}, {0xFE53, 0xFE53}, {0xFE67, 0xFE67},
    {0xFE6C, 0xFE6F}, {0xFE75, 0xFE75}, {0xFEFD, 0xFF00}, {0xFFA0, 0xFFA0},
    {0xFFBF, 0xFFC1}, {0xFFC8, 0xFFC9}, {0xFFD0, 0xFFD1}, {0xFFD8, 0xFFD9},
    {0xFFDD, 0xFFDF}, {0xFFE7, 0xFFE7}, {0xFFEF, 0xFFFB}, {0xFFFE, 0xFFFF},
    {0x1000C, 0x1000C}, {0x10027, 0x10027}, {0x1003B, 0x1003B},
    {0x1003E, 0x1003E}, {0x1004E, 0x1004F}, {0x1005E, 0x1007F},
    {0x100FB, 0x100FF}, {0x10103, 0x10106}, {0x10134, 0x10136},
    {0x1018B, 0x1018F}, {0x1019C, 0x101CF}, {0x101FE, 0x1027F},
    {0x1029D, 0x1029F}, {0x102D1, 0x102FF}, {0x1031F, 0x1031F},
    {0x10324, 0x1032F}, {0x1034B, 0x1037F}, {0x1039E, 0x1039E},
    {0x103C4, 0x103C7}, {0x103D6, 0x103FF}, {0x1049E, 0x1049F},
    {0x104AA, 0x107FF}, {0x10806, 0x10807}, {0x10809, 0x10809},
    {0x10836, 0x10836}, {0x10839, 0x1083B}, {0x1083D, 0x1083E},
    {0x10856, 0x10856}, {0x10860, 0x108FF}, {0x1091C, 0x1091E},
    {0x1093A, 0x1093E}, {0x10940, 0x1097F}, {0x109B8, 0x109BD},
    {0x109C0, 0x109FF}, {0x10A04, 0x10A04}, {0x10A07, 0x10A0B},
    {0x10A14, 0x10A14}, {0x10A18, 0x10A18}, {0x10A34, 0x10A37},
    {0x10A3B, 0x10A3E}, {0x10A48, 0x10A4F}, {0x10A59, 0x10A5F},
    {0x10A80, 0x10AFF}, {0x10B36, 0x10B38}, {0x10B56, 0x10B57},
    {0x10B73, 0x10B77}, {0x10B80, 0x10BFF}, {0x10C49, 0x10E5F},
    {0x10E7F, 0x10FFF}, {0x1104E, 0x11051}, {0x11070, 0x1107F},
    {0x110BD, 0x110BD}, {0x110C2, 0x110CF}, {0x110E9, 0x110EF},
    {0x110FA, 0x110FF}, {0x11135, 0x11135}, {0x11144, 0x1117F},
    {0x111C9, 0x111CF}, {0x111DA, 0x1167F}, {0x116B8, 0x116BF},
    {0x116CA, 0x11FFF}, {0x1236F, 0x123FF}, {0x12463, 0x1246F},
    {0x12474, 0x12FFF}, {0x1342F, 0x167FF}, {0x16A39, 0x16EFF},
    {0x16F45, 0x16F4F}, {0x16F7F, 0x16F8E}, {0x16FA0, 0x1AFFF},
    {0x1B002, 0x1CFFF}, {0x1D0F6, 0x1D0FF}, {0x1D127, 0x1D128},
    {0x1D173, 0x1D17A}, {0x1D1DE, 0x1D1FF}, {0x1D246, 0x1D2FF},
    {0x1D357, 0x1D35F}, {0x1D372, 0x1D3FF}, {0x1D455, 0x1D455},
    {0x1D49D, 0x1D49D}, {0x1D4A0, 0x1D4A1}, {0x1D4A3, 0x1D4A4},
    {0x1D4A7, 0x1D4A8}, {0x1D4AD, 0x1D4AD}, {0x1D4BA, 0x1D4BA},
    {0x1D4BC, 0x1D4BC}, {0x1D4C4, 0x1D4C4}, {0x1D506, 0x1D506},
    {0x1D50B, 0x1D50C}, {0x1D515, 0x1D515}, {0x1D51D, 0x1D51D},
    {0x1D53A, 0x1D53A}, {0x1D53F, 0x1D53F}, {0x1D545, 0x1D545},
    {0x1D547, 0x1D549}, {0x1D551, 0x1D551}, {0x1D6A6, 0x1D6A7},
    {0x1D7CC, 0x1D7CD}, {0x1D800, 0x1EDFF}, {0x1EE04, 0x1EE04},
    {0x1EE20, 0x1EE20}, {0x1EE23, 0x1EE23}, {0x1EE25, 0x1EE26},
    {0x1EE28, 0x1EE28}, {0x1EE33, 0x1EE33}, {0x1EE38, 0x1EE38},
    {0x1EE3A, 0x1EE3A}, {0x1EE3C, 0x1EE41}, {0x1EE43, 0x1EE46},
    {0x1EE48, 0x1EE48}, {0x1EE4A, 0x1EE4A}, {0x1EE4C, 0x1EE4C},
    {0x1EE50, 0x1EE50}, {0x1EE53, 0x1EE53}, {0x1EE55, 0x1EE56},
    {0x1EE58, 0x1EE58}, {0x1EE5A, 0x1EE5A}, {0x1EE5C, 0x1EE5C},
    {0x1EE5E, 0x1EE5E}, {0x1EE60, 0x1EE60}, {0x1EE63, 0x1EE63},
    {0x1EE65, 0x1EE66}, {0x1EE6B, 0x1EE6B}, {0x1EE73, 0x1EE73},
    {0x1EE78, 0x1EE78}, {0x1EE7D, 0x1EE7D}, {0x1EE7F, 0x1EE7F},
    {0x1EE8A, 0x1EE8A}, {0x1EE9C, 0x1EEA0}, {0x1EEA4, 0x1EEA4},
    {0x1EEAA, 0x1EEAA}, {0x1EEBC, 0x1EEEF}, {0x1EEF2, 0x1EFFF},
    {0x1F02C, 0x1F02F}, {0x1F094, 0x1F09F}, {0x1F0AF, 0x1F0B0},
    {0x1F0BF, 0x1F0C0}, {0x1F0D0, 0x1F0D0}, {0x1F0E0, 0x1F0FF},
    {0x1F10B, 0x1F10F}, {0x1F12F, 0x1F12F}, {0x1F16C, 0x1F16F},
    {0x1F19B, 0x1F1E5}, {0x1F203, 0x1F20F}, {0x1F23B, 0x1F23F},
    {0x1F249, 0x1F24F}, {0x1F252, 0x1F2FF}, {0x1F321, 0x1F32F},
    {0x1F336, 0x1F336}, {0x1F37D, 0x1F37F}, {0x1F394, 0x1F39F},
    {0x1F3C5, 0x1F3C5}, {0x1F3CB, 0x1F3DF}, {0x1F3F1, 0x1F3FF},
    {0x1F43F, 0x1F43F}, {0x1F441, 0x1F441}, {0x1F4F8, 0x1F4F8},
    {0x1F4FD, 0x1F4FF}, {0x1F53E, 0x1F53F}, {0x1F544, 0x1F54F},
    {0x1F568, 0x1F5FA}, {0x1F641, 0x1F644}, {0x1F650, 0x1F67F},
    {0x1F6C6, 0x1F6FF}, {0x1F774, 0x1FFFF}, {0x2A6D7, 0x2A6FF},
    {0x2B735, 0x2B73F}, {0x2B81E, 0x2F7FF}, {0x2FA1E, 0xF0000},
    {0xFFFFE, 0xFFFFF}, {0x10FFFE, 0x10FFFF},
};

static int is_printable(uint32_t cp)
{
    size_t lo = 0, hi = sizeof nonprintable / sizeof nonprintable[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < nonprintable[mid][0])
            hi = mid;
        else if (cp > nonprintable[mid][1])
            lo = mid + 1;
        else
            return 0;
    }
    return 1;
}

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static int is_alnum(uint8_t c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_space(uint8_t c)
{
    return c == ' ' || c == '\f' || c == '\n' || c == '\r' || c == '\t' || c == '\v';
}

static int eq(const uint8_t *s, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

static size_t skip_digits(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* llvm::yaml::isNumeric */
static int is_numeric(const uint8_t *s, size_t n)
{
    if (n == 0 || eq(s, n, "+") || eq(s, n, "-"))
        return 0;
    if (eq(s, n, ".nan") || eq(s, n, ".NaN") || eq(s, n, ".NAN"))
        return 1;
    const uint8_t *t = s;
    size_t tn = n;
    if (s[0] == '-' || s[0] == '+')
        t++, tn--;
    if (eq(t, tn, ".inf") || eq(t, tn, ".Inf") || eq(t, tn, ".INF"))
        return 1;
    if (n >= 2 && s[0] == '0' && s[1] == 'o') {
        if (n == 2)
            return 0;
        for (size_t i = 2; i < n; i++)
            if (s[i] < '0' || s[i] > '7')
                return 0;
        return 1;
    }
    if (n >= 2 && s[0] == '0' && s[1] == 'x') {
        if (n == 2)
            return 0;
        for (size_t i = 2; i < n; i++)
            if (!is_digit(s[i]) && !((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'f'))
                return 0;
        return 1;
    }
    s = t;
    n = tn;
    if (n > 0 && s[0] == '.' && (n == 1 || !is_digit(s[1])))
        return 0;
    if (n > 0 && (s[0] == 'e' || s[0] == 'E'))
        return 0;
    size_t i = skip_digits(s, n);
    if (i == n)
        return 1;
    if (s[i] == '.') {
        i++;
        i += skip_digits(s + i, n - i);
        if (i == n)
            return 1;
        if (s[i] != 'e' && s[i] != 'E')
            return 0;
    } else if (s[i] != 'e' && s[i] != 'E') {
        return 0;
    }
    i++; /* the exponent marker */
    if (i == n)
        return 0;
    if (s[i] == '+' || s[i] == '-') {
        i++;
        if (i == n)
            return 0;
    }
    return i + skip_digits(s + i, n - i) == n;
}

static int needs_quotes(const uint8_t *s, size_t n)
{
    static const char indicators[] = "-?:\\,[]{}#&*!|>'\"%@`";
    if (n == 0)
        return Q_SINGLE;
    int q = Q_PLAIN;
    if (is_space(s[0]) || is_space(s[n - 1]))
        q = Q_SINGLE;
    if (eq(s, n, "null") || eq(s, n, "Null") || eq(s, n, "NULL") || eq(s, n, "~"))
        q = Q_SINGLE;
    if (eq(s, n, "true") || eq(s, n, "True") || eq(s, n, "TRUE") ||
        eq(s, n, "false") || eq(s, n, "False") || eq(s, n, "FALSE"))
        q = Q_SINGLE;
    if (is_numeric(s, n))
        q = Q_SINGLE;
    if (memchr(indicators, s[0], sizeof indicators - 1))
        q = Q_SINGLE;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (is_alnum(c))
            continue;
        switch (c) {
        case '_': case '-': case '^': case '.': case ' ': case '\t':
            continue;
        /* llvm::yaml::needsQuotes lets ',' through, which ends the value
         * in the trace's flow mappings: llvm-xray cannot read its own
         * output back then. tracekit quotes it. */
        case '\n': case '\r': case 0x7F:
            return Q_DOUBLE;
        default:
            if (c <= 0x1F || (c & 0x80))
                return Q_DOUBLE;
            q = Q_SINGLE;
        }
    }
    return q;
}

/* llvm/lib/Support/YAMLParser.cpp decodeUTF8: the code point and its length,
 * length 0 when the bytes are not minimal well-formed UTF-8. */
static size_t decode_utf8(const uint8_t *p, size_t n, uint32_t *cp)
{
    if (n >= 2 && (p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
        uint32_t c = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
        if (c >= 0x80)
            return *cp = c, 2;
    }
    if (n >= 3 && (p[0] & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 &&
        (p[2] & 0xC0) == 0x80) {
        uint32_t c = ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) |
                     (p[2] & 0x3F);
        if (c >= 0x800 && (c < 0xD800 || c > 0xDFFF))
            return *cp = c, 3;
    }
    if (n >= 4 && (p[0] & 0xF8) == 0xF0 && (p[1] & 0xC0) == 0x80 &&
        (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80) {
        uint32_t c = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
                     ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
        if (c >= 0x10000 && c <= 0x10FFFF)
            return *cp = c, 4;
    }
    return 0;
}

static void put_hex_escape(tk_strbuf *b, uint32_t v)
{
    /* utohexstr: upper case, no leading zeros; then padded to 2, 4 or 8 */
    static const char hex[] = "0123456789ABCDEF";
    int digits = 1;
    while (digits < 8 && (v >> (4 * digits)) != 0)
        digits++;
    int width = digits <= 2 ? 2 : digits <= 4 ? 4 : 8;
    char tmp[12];
    size_t k = 0;
    tmp[k++] = '\\';
    tmp[k++] = width == 2 ? 'x' : width == 4 ? 'u' : 'U';
    for (int i = width - 1; i >= 0; i--)
        tmp[k++] = hex[(v >> (4 * i)) & 0xF];
    sb_putn(b, tmp, k);
}

/* llvm::yaml::escape(Input, EscapePrintable = false) */
static void put_escaped(tk_strbuf *b, const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t run = i; /* copy plain bytes in one go */
        while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '\\' &&
               s[run] != '"')
            run++;
        if (run > i) {
            sb_putn(b, (const char *)s + i, run - i);
            i = run;
            continue;
        }
        uint8_t c = s[i];
        switch (c) {
        case '\\': sb_putn(b, "\\\\", 2); break;
        case '"': sb_putn(b, "\\\"", 2); break;
        case 0x00: sb_putn(b, "\\0", 2); break;
        case 0x07: sb_putn(b, "\\a", 2); break;
        case 0x08: sb_putn(b, "\\b", 2); break;
        case 0x09: sb_putn(b, "\\t", 2); break;
        case 0x0A: sb_putn(b, "\\n", 2); break;
        case 0x0B: sb_putn(b, "\\v", 2); break;
        case 0x0C: sb_putn(b, "\\f", 2); break;
        case 0x0D: sb_putn(b, "\\r", 2); break;
        case 0x1B: sb_putn(b, "\\e", 2); break;
        default:
            if (c < 0x20) {
                put_hex_escape(b, c);
                break;
            }
            uint32_t cp;
            size_t len = decode_utf8(s + i, n - i, &cp);
            if (len == 0) {
                /* LLVM appends U+FFFD and stops: the rest is dropped */
                sb_putn(b, "\xEF\xBF\xBD", 3);
                return;
            }
            if (cp == 0x85)
                sb_putn(b, "\\N", 2);
            else if (cp == 0xA0)
                sb_putn(b, "\\_", 2);
            else if (cp == 0x2028)
                sb_putn(b, "\\L", 2);
            else if (cp == 0x2029)
                sb_putn(b, "\\P", 2);
            else if (is_printable(cp))
                sb_putn(b, (const char *)s + i, len);
            else
                put_hex_escape(b, cp);
            i += len;
            continue;
        }
        i++;
    }
}

static void put_scalar(tk_strbuf *b, const uint8_t *s, size_t n)
{
    if (n == 0) {
        sb_putn(b, "''", 2);
        return;
    }
    switch (needs_quotes(s, n)) {
    case Q_PLAIN:
        sb_putn(b, (const char *)s, n);
        return;
    case Q_SINGLE: {
        sb_putc(b, '\'');
        size_t i = 0;
        for (size_t j = 0; j < n; j++)
            if (s[j] == '\'') {
                sb_putn(b, (const char *)s + i, j + 1 - i); /* the quote, doubled */
                sb_putc(b, '\'');
                i = j + 1;
            }
        sb_putn(b, (const char *)s + i, n - i);
        sb_putc(b, '\'');
        return;
    }
    default:
        sb_putc(b, '"');
        put_escaped(b, s, n);
        sb_putc(b, '"');
    }
}

/* ---- the writer */

static tk_status wfail(tk_xray_yaml_writer *w, tk_error *err)
{
    if (w->status == TK_OK) {
        w->status = err ? err->status : TK_EIO;
        if (err)
            w->first = *err;
    }
    return w->status;
}

static tk_status flush_line(tk_xray_yaml_writer *w, tk_error *err)
{
    if (w->line.oom) {
        sb_reset(&w->line);
        w->line.oom = 0;
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, w->records,
                     "out of memory formatting a YAML record");
        return wfail(w, err);
    }
    if (w->line.len && fwrite(w->line.p, 1, w->line.len, w->out) != w->line.len) {
        sb_reset(&w->line);
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, w->records, "writing YAML failed");
        return wfail(w, err);
    }
    sb_reset(&w->line);
    return TK_OK;
}

tk_xray_yaml_writer *tk_xray_yaml_writer_new(FILE *out, const tk_xray_header *h,
                                             tk_error *err)
{
    if (!out || !h) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "YAML writer needs an output stream and a header");
        return NULL;
    }
    tk_xray_yaml_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    w->out = out;
    tk_strbuf *b = &w->line;
    sb_puts(b, "---\nheader:\n  version:         ");
    sb_u64(b, h->version);
    sb_puts(b, "\n  type:            ");
    sb_u64(b, h->type);
    sb_puts(b, "\n  constant-tsc:    ");
    sb_puts(b, (h->bitfield & 1) ? "true" : "false");
    sb_puts(b, "\n  nonstop-tsc:     ");
    sb_puts(b, (h->bitfield & 2) ? "true" : "false");
    sb_puts(b, "\n  cycle-frequency: ");
    sb_u64(b, h->cycle_frequency);
    sb_putc(b, '\n');
    if (flush_line(w, err) != TK_OK) {
        sb_free(&w->line);
        free(w);
        return NULL;
    }
    return w;
}

tk_status tk_xray_yaml_write(tk_xray_yaml_writer *w, const tk_xray_record *rec,
                             const char *function_name, tk_error *err)
{
    if (w->status != TK_OK) {
        if (err)
            *err = w->first;
        return w->status;
    }
    if ((unsigned)rec->kind > TK_XRAY_TYPED_EVENT)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, w->records,
                            "unknown XRay record kind %d", (int)rec->kind);
    tk_strbuf *b = &w->line;
    if (w->records == 0)
        sb_puts(b, "records:\n");
    sb_puts(b, "  - { type: ");
    sb_u64(b, rec->event_type);
    sb_puts(b, ", func-id: ");
    sb_i64(b, rec->func_id);
    sb_puts(b, ", function: ");
    if (function_name) {
        put_scalar(b, (const uint8_t *)function_name, strlen(function_name));
    } else { /* llvm::to_string(FuncId): always quoted, as a number or a '-' */
        sb_putc(b, '\'');
        sb_i64(b, rec->func_id);
        sb_putc(b, '\'');
    }
    if (rec->nargs) {
        sb_puts(b, ", args: [ ");
        for (uint32_t i = 0; i < rec->nargs; i++) {
            if (i)
                sb_putn(b, ", ", 2);
            sb_u64(b, rec->args[i]);
        }
        sb_puts(b, " ]");
    }
    sb_puts(b, ", cpu: ");
    sb_u64(b, rec->cpu);
    if (rec->tid) {
        sb_puts(b, ", thread: ");
        sb_u64(b, rec->tid);
    }
    if (rec->pid) {
        sb_puts(b, ", process: ");
        sb_u64(b, rec->pid);
    }
    sb_puts(b, ", kind: ");
    sb_puts(b, tk_xray_kind_name(rec->kind));
    sb_puts(b, ", tsc: ");
    sb_u64(b, rec->tsc);
    sb_puts(b, ", data: ");
    put_scalar(b, rec->data, rec->data_len);
    sb_puts(b, " }\n");
    tk_status st = flush_line(w, err);
    if (st == TK_OK)
        w->records++;
    return st;
}

tk_status tk_xray_yaml_writer_free(tk_xray_yaml_writer *w, tk_error *err)
{
    if (!w)
        return TK_OK;
    if (w->status == TK_OK) {
        if (w->records == 0)
            sb_puts(&w->line, "records:         []\n");
        sb_puts(&w->line, "...\n");
        if (flush_line(w, err) == TK_OK && fflush(w->out) != 0) {
            tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing YAML failed");
            wfail(w, err);
        }
    } else if (err) {
        *err = w->first;
    }
    tk_status st = w->status;
    sb_free(&w->line);
    free(w);
    return st;
}
