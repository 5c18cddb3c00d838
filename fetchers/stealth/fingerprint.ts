import type { OS_NAMES } from '../../domain/job/spec.js'

export type OsName = (typeof OS_NAMES)[number]

/** The engine default when a job names no os_name: the most common desktop platform. */
export const DEFAULT_OS: OsName = 'windows'

/**
 * One browser process's identity. Everything a page can read about the platform agrees with `os_name`:
 * the User-Agent header and navigator.userAgent, navigator.platform, and User-Agent client hints
 * (Sec-CH-UA-* headers and navigator.userAgentData), all on the real Chromium major version.
 */
export interface Fingerprint {
  readonly os_name: OsName
  readonly userAgent: string
  /** navigator.platform */
  readonly platform: string
  readonly acceptLanguage: string
  /** CDP Emulation.UserAgentMetadata */
  readonly metadata: {
    readonly brands: { brand: string; version: string }[]
    readonly fullVersionList: { brand: string; version: string }[]
    readonly fullVersion: string
    readonly platform: string
    readonly platformVersion: string
    readonly architecture: string
    readonly model: string
    readonly mobile: boolean
    readonly bitness: string
    readonly wow64: boolean
  }
}

const PLATFORMS: Record<OsName, { uaToken: string; navigatorPlatform: string; hintPlatform: string; hintVersion: string }> = {
  windows: { uaToken: 'Windows NT 10.0; Win64; x64', navigatorPlatform: 'Win32', hintPlatform: 'Windows', hintVersion: '15.0.0' },
  macos: { uaToken: 'Macintosh; Intel Mac OS X 10_15_7', navigatorPlatform: 'MacIntel', hintPlatform: 'macOS', hintVersion: '14.6.1' },
  linux: { uaToken: 'X11; Linux x86_64', navigatorPlatform: 'Linux x86_64', hintPlatform: 'Linux', hintVersion: '6.1.0' },
}

/** Chrome's brand list for a major version; the "not a brand" entry varies with the version as Chrome's does. */
const brandList = (major: string, version: string) => {
  const grease = ['Not)A;Brand', 'Not A(Brand', 'Not/A)Brand', 'Not.A/Brand', 'Not;A=Brand', 'Not_A Brand'][Number(major) % 6]!
  const greaseVersion = Number(major) % 2 === 0 ? '24' : '99'
  return [
    { brand: 'Chromium', version },
    { brand: 'Google Chrome', version },
    { brand: grease, version: major === version ? greaseVersion : `${greaseVersion}.0.0.0` },
  ]
}

export const fingerprintFor = (os: OsName, browserVersion: string): Fingerprint => {
  const platform = PLATFORMS[os]
  const major = browserVersion.split('.')[0] ?? '0'
  return {
    os_name: os,
    // Chrome reduces the version in the User-Agent string to MAJOR.0.0.0; the full one is only in client hints.
    userAgent: `Mozilla/5.0 (${platform.uaToken}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
    platform: platform.navigatorPlatform,
    acceptLanguage: 'en-US,en;q=0.9',
    metadata: {
      brands: brandList(major, major),
      fullVersionList: brandList(major, browserVersion),
      fullVersion: browserVersion,
      platform: platform.hintPlatform,
      platformVersion: platform.hintVersion,
      architecture: os === 'macos' ? 'arm' : 'x86',
      model: '',
      mobile: false,
      bitness: '64',
      wow64: false,
    },
  }
}
