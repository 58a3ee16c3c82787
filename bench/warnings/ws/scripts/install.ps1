# Install the CLI on Windows.
Set-ExecutionPolicy Bypass -Scope Process -Force
iex ((New-Object System.Net.WebClient).DownloadString('https://cli.example.com/install.ps1'))
