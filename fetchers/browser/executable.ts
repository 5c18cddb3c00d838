import { execFile } from 'node:child_process'
import { access, constants } from 'node:fs/promises'
import { BrowserUnavailable } from './driver.js'

/** Fails with a clear message when the configured Chromium is missing, instead of a driver's stack trace. */
export const ensureExecutable = async (path: string): Promise<void> => {
  try {
    await access(path, constants.X_OK)
  } catch {
    throw new BrowserUnavailable(`no Chromium executable at ${path}: install Chromium or set CHROMIUM_PATH to its binary`)
  }
}

const versions = new Map<string, Promise<string>>()

/** The browser's full version (`156.0.8078.79`) from `--version`, read once per binary. */
export const chromiumVersion = (path: string): Promise<string> => {
  let known = versions.get(path)
  if (!known) {
    known = ensureExecutable(path).then(() => new Promise<string>((resolve, reject) => {
      execFile(path, ['--version'], { timeout: 15_000 }, (error, stdout) => {
        const version = /(\d+\.\d+\.\d+\.\d+)/.exec(stdout)?.[1]
        if (version) resolve(version)
        else reject(new BrowserUnavailable(`${path} did not report a Chromium version${error ? `: ${error.message.split('\n')[0]}` : ''}`))
      })
    }))
    known.catch(() => versions.delete(path))
    versions.set(path, known)
  }
  return known
}
